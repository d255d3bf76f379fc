import type { EntityManager } from '../db/orm.ts';
import type { Transactions } from '../db/transactions.ts';
import { sqlOf } from '../db/kysely.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { CampaignRow, MessageStatus } from './entities.ts';
import type { CampaignStatus } from './state.ts';
import { campaigns, messages, type CampaignOrder, type ListedMessage } from './store.ts';

/** The campaigns store bound to one unit of work, as the service uses it. */
export class CampaignRepository {
  private readonly em: EntityManager;
  private readonly transactions: Transactions;

  constructor(em: EntityManager, transactions: Transactions) {
    this.em = em;
    this.transactions = transactions;
  }

  byId(accountId: string, id: string): Promise<CampaignRow | null> {
    return campaigns.byId(this.em, accountId, id);
  }

  /** Whether the account has the campaign, as one plain row: no entity to hydrate. */
  async exists(accountId: string, id: string): Promise<boolean> {
    const row = await sqlOf(this.em).selectFrom('campaigns').select('id').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
    return row !== undefined;
  }

  page(accountId: string, status: CampaignStatus | undefined, order: CampaignOrder, after: Cursor | null, limit: number): Promise<CampaignRow[]> {
    return campaigns.page(this.transactions, accountId, status, order, after, limit);
  }

  create(data: Parameters<typeof campaigns.create>[1]): CampaignRow {
    return campaigns.create(this.em, data);
  }

  messages(accountId: string, campaignId: string, status: MessageStatus | undefined, after: Cursor | null, limit: number): Promise<ListedMessage[]> {
    return messages.page(sqlOf(this.em), accountId, campaignId, status, after, limit);
  }

  /** What a test message personalises with, when the address is a contact's. */
  contactByEmail(accountId: string, email: string) {
    return sqlOf(this.em)
      .selectFrom('contacts')
      .select(['first_name', 'last_name', 'tags', 'attributes'])
      .where('account_id', '=', accountId)
      .where((eb) => eb(eb.fn('lower', ['email']), '=', eb.fn('lower', [eb.val(email)])))
      .executeTakeFirst();
  }
}

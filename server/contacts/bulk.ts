import { sql, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { analyzeSoon } from '../db/statistics.ts';
import { validationFailed } from '../contract/problem.ts';
import { filtersOf, matchingIds, type ContactFilters } from './repository.ts';
import { MAX_TAGS } from './rules.ts';
import { positionOf, type SortPosition } from './sort.ts';
import { deleteContacts, retagContacts } from './store.ts';
import type { ReleaseContacts } from './service.ts';

type BulkRequest = components['schemas']['ContactBulkRequest'];
type BulkResult = components['schemas']['ContactBulkResult'];

/** Contacts taken at once from a filter: each thousand is one transaction, short enough to hold its locks. */
export const BULK_BATCH = 1_000;

/** A bound on one request's batches (ten million contacts), should a filter keep matching new contacts. */
const MAX_BATCHES = 10_000;

/** What a request's action does to one batch of the account's contacts; answers how many it changed. */
type Act = (ids: string[]) => Promise<number>;

/** The request's fields that fit its action, or 400 naming the one at fault. */
export function checkBulkRequest(input: BulkRequest): { tags: string[]; listId: string | null } {
  if ((input.contact_ids === undefined) === (input.filter === undefined)) {
    throw validationFailed([{ pointer: input.contact_ids ? '/filter' : '/contact_ids', detail: 'give exactly one of contact_ids or filter' }]);
  }
  const byTags = input.action === 'tag' || input.action === 'untag';
  const byList = input.action === 'add_to_list' || input.action === 'remove_from_list';
  const tags = [...new Set((input.tags ?? []).map((t) => t.trim()).filter(Boolean))];
  if (byTags && !tags.length) throw validationFailed([{ pointer: '/tags', detail: `is required to ${input.action}` }]);
  if (!byTags && input.tags !== undefined) throw validationFailed([{ pointer: '/tags', detail: `is not taken by ${input.action}` }]);
  if (byList && !input.list_id) throw validationFailed([{ pointer: '/list_id', detail: `is required to ${input.action}` }]);
  if (!byList && input.list_id !== undefined) throw validationFailed([{ pointer: '/list_id', detail: `is not taken by ${input.action}` }]);
  return { tags, listId: input.list_id ?? null };
}

/** What bulk list actions need of the lists module: its own checks and events come with them. */
export interface ListMembership {
  exists(accountId: string, listId: string): Promise<boolean>;
  addMembers(accountId: string, listId: string, body: { contact_ids: string[] }): Promise<{ added: number; updated: number }>;
  removeMembers(accountId: string, listId: string, body: { contact_ids: string[] }): Promise<{ removed: number }>;
}

/** `POST /contacts/bulk`: one action on the contacts named by id, or on every contact a filter matches, a batch at a time. */
export class ContactBulkService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly lists: ListMembership;
  private readonly releaseContacts: ReleaseContacts;

  constructor(db: Db, transactions: Transactions, lists: ListMembership, releaseContacts: ReleaseContacts) {
    this.db = db;
    this.transactions = transactions;
    this.lists = lists;
    this.releaseContacts = releaseContacts;
  }

  async run(accountId: string, input: BulkRequest): Promise<BulkResult> {
    const act = await this.action(accountId, input);
    const result = await this.onMatching(accountId, input.contact_ids ? { ids: input.contact_ids } : filtersOf(input.filter!), act);
    if (input.action !== 'add_to_list' && input.action !== 'remove_from_list') analyzeSoon(this.db, ['contacts'], result.changed);
    return result;
  }

  /**
   * Walks the account's contacts that `filters` match (ids of no contact of the account are left
   * out) in `created_at, id` order, a batch at a time, each committed before the next is read.
   */
  private async onMatching(accountId: string, filters: ContactFilters, act: Act): Promise<BulkResult> {
    const result = { matched: 0, changed: 0 };
    let after: SortPosition | null = null;
    for (let batch = 0; batch < MAX_BATCHES; batch++) {
      const rows = await matchingIds(this.db, accountId, filters, after, BULK_BATCH);
      if (!rows.length) break;
      result.matched += rows.length;
      result.changed += await act(rows.map((r) => r.id));
      if (rows.length < BULK_BATCH) break;
      after = positionOf('created_at', rows[rows.length - 1]);
    }
    return result;
  }

  private async action(accountId: string, input: BulkRequest): Promise<Act> {
    const { tags, listId } = checkBulkRequest(input);
    if (listId && !(await this.lists.exists(accountId, listId))) throw validationFailed([{ pointer: '/list_id', detail: 'no such list' }]);
    const retag = (change: { add: string[]; remove: string[] }) => async (ids: string[]) =>
      (await this.transactions.run((trx) => retagContacts(trx, accountId, sql<SqlBool>`c.id = any(${ids}::text[])`, { ...change, maxTags: MAX_TAGS }))).changed;
    switch (input.action) {
      case 'tag':
        return retag({ add: tags, remove: [] });
      case 'untag':
        return retag({ add: [], remove: tags });
      case 'add_to_list':
        return async (ids) => {
          const { added, updated } = await this.lists.addMembers(accountId, listId!, { contact_ids: ids });
          return added + updated;
        };
      case 'remove_from_list':
        return async (ids) => (await this.lists.removeMembers(accountId, listId!, { contact_ids: ids })).removed;
      case 'delete':
        return (ids) =>
          this.transactions.run(async (trx) => {
            const deleted = await deleteContacts(trx, accountId, ids);
            await this.releaseContacts(trx, accountId, deleted);
            return deleted.length;
          });
    }
  }
}

import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../http/pagination.ts';
import { sqlOf } from '../db/kysely.ts';
import { Campaign, type AudienceFilter, type CampaignRow } from './entities.ts';
import type { CampaignStatus } from './state.ts';

export interface MessageRow {
  id: string;
  campaign_id: string;
  contact_id: string | null;
  email: string;
  status: string;
  reason: string | null;
  attempts: number;
  sent_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  created_at: Date;
}

const jsonArray = (items: string[] | undefined) => (items?.length ? JSON.stringify(items) : null);

export class CampaignRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  byId(accountId: string, id: string, lock = false): Promise<CampaignRow | null> {
    return this.em.findOne(Campaign, { id, accountId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {});
  }

  /** One page in `(created_at, id)` order, read as plain rows: a list needs no identity map. */
  page(accountId: string, status: CampaignStatus | undefined, after: Cursor | null, limit: number): Promise<CampaignRow[]> {
    let query = sqlOf(this.em)
      .selectFrom('campaigns')
      .select([
        'id', 'account_id as accountId', 'name', 'subject', 'from_email as fromEmail', 'from_name as fromName', 'reply_to as replyTo',
        'content', 'text_content as textContent', 'preheader', 'audience', 'track_opens as trackOpens', 'track_clicks as trackClicks',
        'status', 'failure_reason as failureReason', 'scheduled_at as scheduledAt', 'started_at as startedAt', 'completed_at as completedAt',
        'recipients', 'sent', 'delivered', 'deferred', 'failed', 'bounced', 'opened', 'clicked', 'unsubscribed', 'complained',
        'created_at as createdAt', 'updated_at as updatedAt',
      ])
      .where('account_id', '=', accountId);
    if (status) query = query.where('status', '=', status);
    if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
    return query.orderBy('created_at').orderBy('id').limit(limit + 1).execute();
  }

  create(data: Partial<CampaignRow> & Pick<CampaignRow, 'id' | 'accountId' | 'name' | 'subject' | 'fromEmail' | 'content'>): CampaignRow {
    return this.em.create(Campaign, data as CampaignRow);
  }

  remove(campaign: CampaignRow): void {
    this.em.remove(campaign);
  }

  /** The audience, frozen into one queued message per subscribed contact. Suppressed contacts are left out. */
  async snapshotAudience(campaign: CampaignRow): Promise<number> {
    const audience: AudienceFilter = campaign.audience ?? {};
    const [row] = await this.em.execute<{ n: number }[]>(
      `with recipients as (
         insert into messages (id, account_id, campaign_id, contact_id, email, status)
         select sendline_id('msg'), c.account_id, ?, c.id, c.email, 'queued'
         from contacts c
         where c.account_id = ? and c.status = 'subscribed'
           and (?::jsonb is null or c.tags && array(select jsonb_array_elements_text(?::jsonb)))
           and (?::jsonb is null or c.tags @> array(select jsonb_array_elements_text(?::jsonb)))
           and (?::jsonb is null or not c.tags && array(select jsonb_array_elements_text(?::jsonb)))
         order by c.created_at, c.id
         returning 1
       )
       select count(*)::int as n from recipients`,
      [campaign.id, campaign.accountId, ...[audience.tags_any, audience.tags_all, audience.exclude_tags].flatMap((tags) => [jsonArray(tags), jsonArray(tags)])],
    );
    return row.n;
  }

  async cancelPendingMessages(campaignId: string): Promise<void> {
    await this.em.execute(
      "update messages set status = 'cancelled', next_attempt_at = null where campaign_id = ? and status in ('queued', 'deferred')",
      [campaignId],
    );
  }

  async messages(campaignId: string, status: string | undefined, after: Cursor | null, limit: number): Promise<MessageRow[]> {
    const where = ['campaign_id = ?'];
    const params: unknown[] = [campaignId];
    if (status) {
      where.push('status = ?');
      params.push(status);
    }
    if (after) {
      where.push('(created_at, id) > (?, ?)');
      params.push(after.at, after.id);
    }
    const rows = await this.em.execute(
      `select id, campaign_id, contact_id, email, status, reason, attempts, sent_at, opened_at, clicked_at, created_at
       from messages where ${where.join(' and ')} order by created_at, id limit ?`,
      [...params, limit + 1],
    );
    // Raw rows carry timestamps as text.
    const date = (v: string | null) => (v === null ? null : new Date(v));
    return rows.map((r) => ({ ...r, sent_at: date(r.sent_at), opened_at: date(r.opened_at), clicked_at: date(r.clicked_at), created_at: new Date(r.created_at) })) as MessageRow[];
  }

  contactByEmail(accountId: string, email: string) {
    return this.em.execute(
      'select id, email, first_name, last_name, tags, attributes from contacts where account_id = ? and lower(email) = lower(?)',
      [accountId, email],
    );
  }
}

import { sql, type SelectQueryBuilder } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Database, Db } from '../db/kysely.ts';
import { decodeCursor, toPage, type Cursor, type Page } from '../http/pagination.ts';
import { notFound } from '../http/problem.ts';

type Schemas = components['schemas'];
export type OpenRecord = Schemas['OpenRecord'];
export type ClickRecord = Schemas['ClickRecord'];
export type BounceRecordJson = Schemas['BounceRecord'];
export type ContactActivity = Schemas['ContactActivity'];

export interface TrackingFilters {
  campaign_id?: string;
  contact_id?: string;
  email?: string;
  since?: string;
  until?: string;
  url?: string;
  type?: Schemas['BounceType'];
}

type RecordTable = 'opens' | 'clicks' | 'bounces';

interface ActivityRow {
  id: string;
  type: ContactActivity['type'];
  occurred_at: Date;
  campaign_id: string | null;
  url: string | null;
  detail: string | null;
}

const keyOf = (r: { occurred_at: Date; id: string }): Cursor => ({ at: r.occurred_at, id: r.id });

/** The raw tracking records, newest first, and a contact's whole history. */
export class TrackingService {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async opens(accountId: string, filters: TrackingFilters, limit: number, cursor?: string): Promise<Page<OpenRecord>> {
    const query = this.db.selectFrom('opens').select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'user_agent', 'ip', 'machine']);
    const rows = await this.recent(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  async clicks(accountId: string, filters: TrackingFilters, limit: number, cursor?: string): Promise<Page<ClickRecord>> {
    let query = this.db.selectFrom('clicks').select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'url', 'user_agent', 'ip']);
    if (filters.url) query = query.where('url', '=', filters.url);
    const rows = await this.recent(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  async bounces(accountId: string, filters: TrackingFilters, limit: number, cursor?: string): Promise<Page<BounceRecordJson>> {
    let query = this.db.selectFrom('bounces').select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'type', 'reason', 'diagnostic_code']);
    if (filters.type) query = query.where('type', '=', filters.type);
    const rows = await this.recent(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  /** One page of an account's records, newest first by `(occurred_at, id)` with keyset cursors. */
  private recent<T extends RecordTable, O>(query: SelectQueryBuilder<Database, T, O>, accountId: string, f: TrackingFilters, limit: number, cursor?: string) {
    // The columns every record table has, named through one of them for the builder's types.
    let q = query as unknown as SelectQueryBuilder<Database, 'opens', O>;
    const after = decodeCursor(cursor);
    q = q.where('account_id', '=', accountId);
    if (f.campaign_id) q = q.where('campaign_id', '=', f.campaign_id);
    if (f.contact_id) q = q.where('contact_id', '=', f.contact_id);
    if (f.email) q = q.where(sql<boolean>`lower(email) = lower(${f.email})`);
    if (f.since) q = q.where('occurred_at', '>=', new Date(f.since));
    if (f.until) q = q.where('occurred_at', '<', new Date(f.until));
    if (after) q = q.where(sql<boolean>`(occurred_at, id) < (${after.at}, ${after.id})`);
    return q
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit + 1);
  }

  async contactActivity(accountId: string, contactId: string, limit: number, cursor?: string): Promise<Page<ContactActivity>> {
    const contact = await this.db.selectFrom('contacts').select('id').where('id', '=', contactId).where('account_id', '=', accountId).executeTakeFirst();
    if (!contact) throw notFound('contact');
    const after = decodeCursor(cursor);
    const { rows } = await sql<ActivityRow>`select * from (
         select id, case status when 'delivered' then 'delivered' when 'deferred' then 'deferred' when 'failed' then 'failed' else 'sent' end as type,
                coalesce(sent_at, created_at) as occurred_at, campaign_id, null::text as url, case when status in ('deferred', 'failed') then reason end as detail
           from messages where contact_id = ${contactId} and status in ('sent', 'delivered', 'deferred', 'failed')
         union all select id, 'opened', occurred_at, campaign_id, null, null from opens where contact_id = ${contactId}
         union all select id, 'clicked', occurred_at, campaign_id, url, null from clicks where contact_id = ${contactId}
         union all select id, case when type = 'complaint' then 'complained' else 'bounced' end, occurred_at, campaign_id, null,
                case when type = 'complaint' then reason else type || coalesce(': ' || reason, '') end from bounces where contact_id = ${contactId}
         union all select id, 'unsubscribed', occurred_at, campaign_id, null, source from unsubscribes where contact_id = ${contactId}
         union all select id, 'conversion', occurred_at, campaign_id, null, type from conversions where contact_id = ${contactId}
         union all select id, 'payment', occurred_at, campaign_id, null, amount::text || ' ' || currency from payments where contact_id = ${contactId}
       ) activity
       where ${after?.at ?? null}::timestamptz is null or (occurred_at, id) < (${after?.at ?? null}, ${after?.id ?? null})
       order by occurred_at desc, id desc limit ${limit + 1}`.execute(this.db);
    return toPage(rows, limit, keyOf, (r) => ({
      type: r.type,
      occurred_at: r.occurred_at.toISOString(),
      campaign_id: r.campaign_id,
      ...(r.url ? { url: r.url } : {}),
      ...(r.detail ? { detail: r.detail } : {}),
    }));
  }
}

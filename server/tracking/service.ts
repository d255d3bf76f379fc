import { sql } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import { keysetPage } from '../db/keyset.ts';
import { recentRecords } from '../db/recent.ts';
import { decodeCursor, toPage, type Cursor, type Page } from '../contract/pagination.ts';
import { notFound } from '../contract/problem.ts';

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
    const rows = await recentRecords(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  async clicks(accountId: string, filters: TrackingFilters, limit: number, cursor?: string): Promise<Page<ClickRecord>> {
    let query = this.db.selectFrom('clicks').select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'url', 'user_agent', 'ip']);
    if (filters.url) query = query.where('url', '=', filters.url);
    const rows = await recentRecords(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  async bounces(accountId: string, filters: TrackingFilters, limit: number, cursor?: string): Promise<Page<BounceRecordJson>> {
    let query = this.db.selectFrom('bounces').select(['id', 'campaign_id', 'contact_id', 'email', 'occurred_at', 'type', 'reason', 'diagnostic_code']);
    if (filters.type) query = query.where('type', '=', filters.type);
    const rows = await recentRecords(query, accountId, filters, limit, cursor).execute();
    return toPage(rows, limit, keyOf, (r) => ({ ...r, occurred_at: r.occurred_at.toISOString() }));
  }

  async contactActivity(accountId: string, contactId: string, limit: number, cursor?: string): Promise<Page<ContactActivity>> {
    const contact = await this.db.selectFrom('contacts').select('id').where('id', '=', contactId).where('account_id', '=', accountId).executeTakeFirst();
    if (!contact) throw notFound('contact');
    const after = decodeCursor(cursor);
    const activity = sql<ActivityRow>`(
         select id, case status when 'delivered' then 'delivered' when 'deferred' then 'deferred' when 'failed' then 'failed' else 'sent' end as type,
                coalesce(sent_at, created_at) as occurred_at, campaign_id, null::text as url, case when status in ('deferred', 'failed') then reason end as detail
           from messages where account_id = ${accountId} and contact_id = ${contactId} and status in ('sent', 'delivered', 'deferred', 'failed')
         union all select id, 'opened', occurred_at, campaign_id, null, null from opens where account_id = ${accountId} and contact_id = ${contactId}
         union all select id, 'clicked', occurred_at, campaign_id, url, null from clicks where account_id = ${accountId} and contact_id = ${contactId}
         union all select id, case when type = 'complaint' then 'complained' else 'bounced' end, occurred_at, campaign_id, null,
                case when type = 'complaint' then reason else type || coalesce(': ' || reason, '') end from bounces where account_id = ${accountId} and contact_id = ${contactId}
         union all select id, 'unsubscribed', occurred_at, campaign_id, null, source from unsubscribes where account_id = ${accountId} and contact_id = ${contactId}
         union all select id, 'conversion', occurred_at, campaign_id, null, type from conversions where account_id = ${accountId} and contact_id = ${contactId}
         union all select id, 'payment', occurred_at, campaign_id, null, amount::text || ' ' || currency from payments where account_id = ${accountId} and contact_id = ${contactId}
       )`.as('activity');
    const rows = await keysetPage(this.db.selectFrom(activity).selectAll(), { at: 'occurred_at', id: 'id', direction: 'desc' }, after, limit).execute();
    return toPage(rows, limit, keyOf, (r) => ({
      type: r.type,
      occurred_at: r.occurred_at.toISOString(),
      campaign_id: r.campaign_id,
      ...(r.url ? { url: r.url } : {}),
      ...(r.detail ? { detail: r.detail } : {}),
    }));
  }
}

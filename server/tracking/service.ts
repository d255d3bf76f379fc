import type { Pool } from '../db/pool.ts';
import { recentPage } from '../db/recent.ts';
import { decodeCursor, toPage, type Cursor } from '../http/pagination.ts';
import { notFound } from '../http/problem.ts';

export interface TrackingFilters {
  campaign_id?: string;
  contact_id?: string;
  email?: string;
  since?: string;
  until?: string;
  url?: string;
  type?: string;
}

interface Row {
  id: string;
  occurred_at: Date;
  [column: string]: unknown;
}

const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : d);

/** The raw tracking records, newest first, and a contact's whole history. */
export class TrackingService {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  opens(accountId: string, filters: TrackingFilters, limit: number, cursor?: string) {
    return this.list('opens', 'user_agent, ip, machine', accountId, filters, limit, cursor);
  }

  clicks(accountId: string, filters: TrackingFilters, limit: number, cursor?: string) {
    return this.list('clicks', 'url, user_agent, ip', accountId, filters, limit, cursor);
  }

  bounces(accountId: string, filters: TrackingFilters, limit: number, cursor?: string) {
    return this.list('bounces', 'type, reason, diagnostic_code', accountId, filters, limit, cursor);
  }

  private list(table: 'opens' | 'clicks' | 'bounces', extra: string, accountId: string, f: TrackingFilters, limit: number, cursor?: string) {
    return recentPage(
      this.pool,
      {
        table,
        columns: `id, campaign_id, contact_id, email, occurred_at, ${extra}`,
        accountId,
        conditions: [
          ['campaign_id = ?', f.campaign_id],
          ['contact_id = ?', f.contact_id],
          ['lower(email) = lower(?)', f.email],
          ['occurred_at >= ?', f.since],
          ['occurred_at < ?', f.until],
          ['url = ?', table === 'clicks' ? f.url : undefined],
          ['type = ?', table === 'bounces' ? f.type : undefined],
        ],
        limit,
        cursor,
      },
      (r) => ({ ...r, occurred_at: iso(r.occurred_at) }),
    );
  }

  async contactActivity(accountId: string, contactId: string, limit: number, cursor?: string) {
    const { rows: [contact] } = await this.pool.query('select id from contacts where id = $1 and account_id = $2', [contactId, accountId]);
    if (!contact) throw notFound('contact');
    const after = decodeCursor(cursor);
    const { rows } = await this.pool.query<Row>(
      `select * from (
         select id, case status when 'delivered' then 'delivered' when 'deferred' then 'deferred' when 'failed' then 'failed' else 'sent' end as type,
                coalesce(sent_at, created_at) as occurred_at, campaign_id, null::text as url, case when status in ('deferred', 'failed') then reason end as detail
           from messages where contact_id = $1 and status in ('sent', 'delivered', 'deferred', 'failed')
         union all select id, 'opened', occurred_at, campaign_id, null, null from opens where contact_id = $1
         union all select id, 'clicked', occurred_at, campaign_id, url, null from clicks where contact_id = $1
         union all select id, case when type = 'complaint' then 'complained' else 'bounced' end, occurred_at, campaign_id, null,
                case when type = 'complaint' then reason else type || coalesce(': ' || reason, '') end from bounces where contact_id = $1
         union all select id, 'unsubscribed', occurred_at, campaign_id, null, source from unsubscribes where contact_id = $1
         union all select id, 'conversion', occurred_at, campaign_id, null, type from conversions where contact_id = $1
         union all select id, 'payment', occurred_at, campaign_id, null, amount::text || ' ' || currency from payments where contact_id = $1
       ) activity
       where $2::timestamptz is null or (occurred_at, id) < ($2, $3)
       order by occurred_at desc, id desc limit $4`,
      [contactId, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    return toPage(rows, limit, keyOf, (r) => ({
      type: r.type as string,
      occurred_at: iso(r.occurred_at) as string,
      campaign_id: (r.campaign_id as string | null) ?? null,
      ...(r.url ? { url: r.url as string } : {}),
      ...(r.detail ? { detail: r.detail as string } : {}),
    }));
  }
}

function keyOf(r: Row): Cursor {
  return { at: r.occurred_at, id: r.id };
}

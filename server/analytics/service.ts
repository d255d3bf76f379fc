import { decimalText } from '../db/decimal.ts';
import type { Pool } from '../db/pool.ts';
import { notFound } from '../http/problem.ts';

const ENGAGEMENT_SUMS = `coalesce(sum(sent), 0)::int as sent, coalesce(sum(delivered), 0)::int as delivered, coalesce(sum(deferred), 0)::int as deferred,
  coalesce(sum(failed), 0)::int as failed, coalesce(sum(opens), 0)::int as opens, coalesce(sum(unique_opens), 0)::int as unique_opens,
  coalesce(sum(human_opens), 0)::int as human_opens, coalesce(sum(clicks), 0)::int as clicks, coalesce(sum(unique_clicks), 0)::int as unique_clicks,
  coalesce(sum(bounces_hard), 0)::int as bounces_hard, coalesce(sum(bounces_soft), 0)::int as bounces_soft,
  coalesce(sum(complaints), 0)::int as complaints, coalesce(sum(unsubscribes), 0)::int as unsubscribes`;

const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled', 'failed'] as const;
const CONTACT_STATUSES = ['subscribed', 'unsubscribed', 'bounced', 'complained'] as const;
/** The campaign time series is hourly this long after the start, daily after. */
const HOURLY_FOR_MS = 72 * 3600_000;

type Sums = Record<string, number>;

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

function figures(s: Sums, revenue: { conversions: number; currency: string; amount: string }[]) {
  const bounces = s.bounces_hard + s.bounces_soft;
  return {
    sent: s.sent,
    delivered: s.delivered,
    deferred: s.deferred,
    failed: s.failed,
    opens: { unique: s.unique_opens, total: s.opens, human: s.human_opens },
    clicks: { unique: s.unique_clicks, total: s.clicks },
    bounces: { hard: s.bounces_hard, soft: s.bounces_soft },
    complaints: s.complaints,
    unsubscribes: s.unsubscribes,
    conversions: {
      count: revenue.reduce((n, r) => n + r.conversions, 0),
      revenue: revenue.filter((r) => r.currency !== '').map((r) => ({ currency: r.currency, amount: decimalText(r.amount) })),
    },
    rates: {
      open_rate: ratio(s.unique_opens, s.delivered),
      click_rate: ratio(s.unique_clicks, s.delivered),
      click_to_open_rate: ratio(s.unique_clicks, s.unique_opens),
      bounce_rate: ratio(bounces, s.sent + s.bounces_hard),
      complaint_rate: ratio(s.complaints, s.delivered),
      unsubscribe_rate: ratio(s.unsubscribes, s.delivered),
    },
  };
}

/**
 * Analytics read the rollups the tracking triggers keep (hourly buckets), never the raw
 * records: the cost of a request does not grow with the number of opens and clicks.
 */
export class AnalyticsService {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  async overview(accountId: string, since?: string, until?: string) {
    // Buckets are whole hours: a bound inside an hour counts that hour.
    const range = [accountId, since ?? null, until ?? null];
    const inRange = `account_id = $1 and ($2::timestamptz is null or bucket >= date_trunc('hour', $2::timestamptz, 'UTC')) and ($3::timestamptz is null or bucket < $3::timestamptz)`;
    const [contacts, campaigns, sums, revenue] = await Promise.all([
      this.pool.query('select status, count::int from contact_status_counts where account_id = $1', [accountId]),
      this.pool.query('select status, count(*)::int from campaigns where account_id = $1 group by status', [accountId]),
      this.pool.query(`select ${ENGAGEMENT_SUMS} from campaign_hourly where ${inRange}`, range),
      this.pool.query(`select currency, sum(conversions)::int as conversions, sum(amount)::text as amount from revenue_hourly where ${inRange} group by currency order by currency`, range),
    ]);
    const byStatus = (rows: { status: string; count: number }[], statuses: readonly string[]) =>
      Object.fromEntries(statuses.map((s) => [s, rows.find((r) => r.status === s)?.count ?? 0]));
    const contactCounts = byStatus(contacts.rows, CONTACT_STATUSES);
    return {
      since: since ?? null,
      until: until ?? null,
      contacts: { total: Object.values(contactCounts).reduce((a, b) => a + b, 0), ...contactCounts },
      campaigns: byStatus(campaigns.rows, CAMPAIGN_STATUSES),
      ...figures(sums.rows[0], revenue.rows),
    };
  }

  async campaign(accountId: string, campaignId: string) {
    const { rows: [campaign] } = await this.pool.query('select id, started_at, created_at from campaigns where id = $1 and account_id = $2', [campaignId, accountId]);
    if (!campaign) throw notFound('campaign');
    const dailyFrom = new Date((campaign.started_at ?? campaign.created_at).getTime() + HOURLY_FOR_MS);
    const [sums, revenue, series, links, domains] = await Promise.all([
      this.pool.query(`select ${ENGAGEMENT_SUMS} from campaign_hourly where campaign_id = $1`, [campaignId]),
      this.pool.query('select currency, sum(conversions)::int as conversions, sum(amount)::text as amount from revenue_hourly where account_id = $1 and campaign_id = $2 group by currency order by currency', [accountId, campaignId]),
      this.pool.query(
        `select case when bucket < $2 then bucket else $2 + floor(extract(epoch from bucket - $2) / 86400) * interval '1 day' end as at,
                sum(opens)::int as opens, sum(clicks)::int as clicks, sum(bounces_hard + bounces_soft)::int as bounces, sum(unsubscribes)::int as unsubscribes
         from campaign_hourly where campaign_id = $1 group by 1 order by 1`,
        [campaignId, dailyFrom],
      ),
      this.pool.query('select url, unique_clicks, total_clicks from campaign_links where campaign_id = $1 order by unique_clicks desc, total_clicks desc, url limit 20', [campaignId]),
      this.pool.query('select domain, sent, delivered, opens, clicks, bounces from campaign_domains where campaign_id = $1 order by sent desc, domain limit 20', [campaignId]),
    ]);
    return {
      campaign_id: campaignId,
      ...figures(sums.rows[0], revenue.rows),
      time_series: series.rows.map((p) => ({ ...p, at: p.at.toISOString() })),
      top_links: links.rows,
      domains: domains.rows,
    };
  }
}

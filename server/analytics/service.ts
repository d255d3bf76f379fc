import { sql } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import { decimalText } from '../db/decimal.ts';
import type { Db } from '../db/kysely.ts';
import { notFound } from '../contract/problem.ts';
import { CAMPAIGN_STATUSES } from '../campaigns/state.ts';
import { variantFigures } from '../campaigns/ab-test.ts';
import { CONTACT_STATUSES } from '../contacts/rules.ts';

export type AnalyticsOverview = components['schemas']['AnalyticsOverview'];
export type CampaignAnalytics = components['schemas']['CampaignAnalytics'];

/** The counters of campaign_hourly that analytics add up. */
const SUMMED = [
  'sent',
  'delivered',
  'deferred',
  'failed',
  'opens',
  'unique_opens',
  'human_opens',
  'clicks',
  'unique_clicks',
  'bounces_hard',
  'bounces_soft',
  'complaints',
  'unsubscribes',
] as const;
type Sums = Record<(typeof SUMMED)[number], number>;
const SUMS = SUMMED.map((column) => sql<number>`coalesce(sum(${sql.ref(column)}), 0)::int`.as(column));

interface Revenue {
  currency: string;
  conversions: number;
  amount: string;
}

/** The campaign time series is hourly this long after the start, daily after. */
const HOURLY_FOR_MS = 72 * 3600_000;

const ratio = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

function figures(s: Sums, revenue: Revenue[]) {
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

function byStatus<S extends string>(rows: { status: string; count: number }[], statuses: readonly S[]): Record<S, number> {
  const counts = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
  for (const row of rows) if ((statuses as readonly string[]).includes(row.status)) counts[row.status as S] = row.count;
  return counts;
}

/**
 * Analytics read the rollups tracking keeps (hourly buckets), never the raw records: the cost of
 * a request does not grow with the number of opens and clicks.
 */
export class AnalyticsService {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async overview(accountId: string, since?: string, until?: string): Promise<AnalyticsOverview> {
    // Buckets are whole hours: a bound inside an hour counts that hour.
    const from = since ? sql<Date>`date_trunc('hour', ${since}::timestamptz, 'UTC')` : null;
    const to = until ? new Date(until) : null;
    const sums = this.db
      .selectFrom('campaign_hourly')
      .select(SUMS)
      .where('account_id', '=', accountId)
      .$if(from !== null, (q) => q.where('bucket', '>=', from!))
      .$if(to !== null, (q) => q.where('bucket', '<', to!));
    const revenue = this.db
      .selectFrom('revenue_hourly')
      .select(['currency', sql<number>`sum(conversions)::int`.as('conversions'), sql<string>`sum(amount)::text`.as('amount')])
      .where('account_id', '=', accountId)
      .$if(from !== null, (q) => q.where('bucket', '>=', from!))
      .$if(to !== null, (q) => q.where('bucket', '<', to!))
      .groupBy('currency')
      .orderBy('currency');
    const [contacts, campaigns, totals, money] = await Promise.all([
      this.db
        .selectFrom('contact_status_counts')
        .select(['status', sql<number>`sum(count)::int`.as('count')])
        .where('account_id', '=', accountId)
        .groupBy('status')
        .execute(),
      this.db
        .selectFrom('campaigns')
        .select(['status', sql<number>`count(*)::int`.as('count')])
        .where('account_id', '=', accountId)
        .groupBy('status')
        .execute(),
      sums.executeTakeFirstOrThrow(),
      revenue.execute(),
    ]);
    const contactCounts = byStatus(contacts, CONTACT_STATUSES);
    return {
      since: since ?? null,
      until: until ?? null,
      contacts: { total: Object.values(contactCounts).reduce((a, b) => a + b, 0), ...contactCounts },
      campaigns: byStatus(campaigns, CAMPAIGN_STATUSES),
      ...figures(totals, money),
    };
  }

  async campaign(accountId: string, campaignId: string): Promise<CampaignAnalytics> {
    const campaign = await this.db
      .selectFrom('campaigns')
      .select(['id', 'started_at', 'created_at', 'variants', 'winner'])
      .where('id', '=', campaignId)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!campaign) throw notFound('campaign');
    const dailyFrom = new Date((campaign.started_at ?? campaign.created_at).getTime() + HOURLY_FOR_MS);
    const [sums, revenue, series, links, domains, variants] = await Promise.all([
      this.db.selectFrom('campaign_hourly').select(SUMS).where('account_id', '=', accountId).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow(),
      this.db
        .selectFrom('revenue_hourly')
        .select(['currency', sql<number>`sum(conversions)::int`.as('conversions'), sql<string>`sum(amount)::text`.as('amount')])
        .where('account_id', '=', accountId)
        .where('campaign_id', '=', campaignId)
        .groupBy('currency')
        .orderBy('currency')
        .execute(),
      sql<{ at: Date; opens: number; clicks: number; bounces: number; unsubscribes: number }>`
        select case when bucket < ${dailyFrom}::timestamptz then bucket
                    else ${dailyFrom}::timestamptz + floor(extract(epoch from bucket - ${dailyFrom}::timestamptz) / 86400) * interval '1 day' end as at,
               sum(opens)::int as opens, sum(clicks)::int as clicks, sum(bounces_hard + bounces_soft)::int as bounces, sum(unsubscribes)::int as unsubscribes
        from campaign_hourly where account_id = ${accountId} and campaign_id = ${campaignId} group by 1 order by 1`.execute(this.db),
      this.db
        .selectFrom('campaign_links')
        .select(['url', 'unique_clicks', 'total_clicks'])
        .where('account_id', '=', accountId)
        .where('campaign_id', '=', campaignId)
        .orderBy('unique_clicks', 'desc')
        .orderBy('total_clicks', 'desc')
        .orderBy('url')
        .limit(20)
        .execute(),
      this.db
        .selectFrom('campaign_domains')
        .select(['domain', 'sent', 'delivered', 'opens', 'clicks', 'bounces'])
        .where('account_id', '=', accountId)
        .where('campaign_id', '=', campaignId)
        .orderBy('sent', 'desc')
        .orderBy('domain')
        .limit(20)
        .execute(),
      campaign.variants ? variantFigures(this.db, accountId, campaignId, campaign.variants) : null,
    ]);
    return {
      campaign_id: campaignId,
      ...figures(sums, revenue),
      time_series: series.rows.map((p) => ({ ...p, at: p.at.toISOString() })),
      top_links: links,
      domains,
      variants,
      winner: campaign.winner,
    };
  }
}

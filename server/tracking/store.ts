import { sql, type Insertable, type Selectable } from 'kysely';
import { copyLines, copyRows, type CopyValue } from '../db/copy.ts';
import { newId } from '../db/ids.ts';
import type { Database, Db } from '../db/kysely.ts';
import type { CampaignCounts, CampaignRecords } from './campaign-records.ts';

/**
 * Every statement that writes tracking's tables: the raw records (opens, clicks, bounces,
 * unsubscribes) and the rollups analytics read (campaign_hourly, campaign_links,
 * campaign_domains), with the engagement columns they keep on messages and the counters on
 * campaigns. Rollups are kept here, in the transaction that writes what they summarise, and
 * nowhere else (no triggers): each count is added once, when its record is a first where a
 * first is what counts.
 */

export type BounceRecord = Selectable<Database['bounces']>;

// ---- Raw records

const OPEN_COLUMNS = 'id, account_id, campaign_id, message_id, contact_id, email, occurred_at, user_agent, ip, machine, is_first, is_first_human';
const CLICK_COLUMNS = 'id, account_id, campaign_id, message_id, contact_id, email, link, url, occurred_at, user_agent, ip, is_first, is_first_for_link';

/** A flush's opens and clicks, by COPY (cheaper than an INSERT of the same rows) in the transaction. */
export async function copyHits(tx: Db, opens: CopyValue[][], clicks: CopyValue[][]): Promise<void> {
  if (opens.length) await copyLines(tx, 'opens', OPEN_COLUMNS, copyRows(opens));
  if (clicks.length) await copyLines(tx, 'clicks', CLICK_COLUMNS, copyRows(clicks));
}

export function insertBounce(db: Db, row: Insertable<Database['bounces']>): Promise<BounceRecord> {
  return db.insertInto('bounces').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function insertUnsubscribe(db: Db, row: Insertable<Database['unsubscribes']>): Promise<void> {
  await db.insertInto('unsubscribes').values(row).execute();
}

// ---- Rollups

type Counters<Table extends keyof Database, Keys extends string> = { [K in Exclude<keyof Database[Table] & string, Keys>]?: number };
type HourlyCounts = Counters<'campaign_hourly', 'campaign_id' | 'bucket' | 'account_id'>;
type DomainCounts = Counters<'campaign_domains', 'campaign_id' | 'domain' | 'account_id'>;
type LinkCounts = Counters<'campaign_links', 'campaign_id' | 'url' | 'account_id'>;

const HOUR_MS = 3600_000;
const domainOf = (email: string) => (email.split('@')[1] ?? '').toLowerCase();

function bump<T extends Record<string, number | undefined>>(counts: T, add: T): void {
  for (const key of Object.keys(add) as (keyof T & string)[]) {
    (counts as Record<string, number>)[key] = (counts[key] ?? 0) + (add[key] ?? 0);
  }
}

/**
 * What a transaction adds to the rollups, gathered in memory and written by `writeRollups`
 * as one upsert per table: a batch of hits costs a few statements, not one per hit.
 */
export class Rollups {
  private readonly hourly = new Map<string, { campaignId: string; bucket: Date; accountId: string; counts: HourlyCounts }>();
  private readonly domains = new Map<string, { campaignId: string; accountId: string; domain: string; counts: DomainCounts }>();
  private readonly links = new Map<string, { campaignId: string; accountId: string; url: string; counts: LinkCounts }>();
  private readonly campaigns = new Map<string, { campaignId: string; accountId: string; counts: CampaignCounts }>();

  /** Counts in the campaign's whole UTC hour of `at`. */
  hour(campaignId: string, accountId: string, at: Date, add: HourlyCounts): this {
    const bucket = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
    const key = `${campaignId} ${bucket}`;
    let entry = this.hourly.get(key);
    if (!entry) this.hourly.set(key, (entry = { campaignId, bucket: new Date(bucket), accountId, counts: {} }));
    bump(entry.counts, add);
    return this;
  }

  /** Counts for the domain of `email`. */
  domain(campaignId: string, accountId: string, email: string, add: DomainCounts): this {
    const domain = domainOf(email);
    const key = `${campaignId} ${domain}`;
    let entry = this.domains.get(key);
    if (!entry) this.domains.set(key, (entry = { campaignId, accountId, domain, counts: {} }));
    bump(entry.counts, add);
    return this;
  }

  link(campaignId: string, accountId: string, url: string, add: LinkCounts): this {
    const key = `${campaignId} ${url}`;
    let entry = this.links.get(key);
    if (!entry) this.links.set(key, (entry = { campaignId, accountId, url, counts: {} }));
    bump(entry.counts, add);
    return this;
  }

  campaign(campaignId: string, accountId: string, add: CampaignCounts): this {
    let entry = this.campaigns.get(campaignId);
    if (!entry) this.campaigns.set(campaignId, (entry = { campaignId, accountId, counts: {} }));
    bump(entry.counts, add);
    return this;
  }

  /** Entries in key order: writers of the same rows lock them in the same order, never deadlocking. */
  sorted() {
    const byKey = <T>(map: Map<string, T>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
    return { campaigns: byKey(this.campaigns), hourly: byKey(this.hourly), domains: byKey(this.domains), links: byKey(this.links) };
  }
}

/** Rows per upsert: well within PostgreSQL's 65,535 parameters. */
const CHUNK = 2000;
const chunks = <T>(rows: T[]) => Array.from({ length: Math.ceil(rows.length / CHUNK) }, (_, i) => rows.slice(i * CHUNK, (i + 1) * CHUNK));

/** Adds what `rollups` gathered: the campaigns' counters first, as the send path does. */
export async function writeRollups(db: Db, rollups: Rollups, campaignRecords: Pick<CampaignRecords, 'addEngagementCounts'>): Promise<void> {
  const { campaigns, hourly, domains, links } = rollups.sorted();
  for (const { campaignId, accountId, counts } of campaigns) await campaignRecords.addEngagementCounts(db, accountId, campaignId, counts);
  for (const part of chunks(hourly)) {
    await db
      .insertInto('campaign_hourly')
      .values(part.map((h) => ({ campaign_id: h.campaignId, bucket: h.bucket, account_id: h.accountId, ...h.counts })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'campaign_id', 'bucket']).doUpdateSet((eb) => ({
          sent: eb('campaign_hourly.sent', '+', eb.ref('excluded.sent')),
          delivered: eb('campaign_hourly.delivered', '+', eb.ref('excluded.delivered')),
          deferred: eb('campaign_hourly.deferred', '+', eb.ref('excluded.deferred')),
          failed: eb('campaign_hourly.failed', '+', eb.ref('excluded.failed')),
          opens: eb('campaign_hourly.opens', '+', eb.ref('excluded.opens')),
          unique_opens: eb('campaign_hourly.unique_opens', '+', eb.ref('excluded.unique_opens')),
          human_opens: eb('campaign_hourly.human_opens', '+', eb.ref('excluded.human_opens')),
          clicks: eb('campaign_hourly.clicks', '+', eb.ref('excluded.clicks')),
          unique_clicks: eb('campaign_hourly.unique_clicks', '+', eb.ref('excluded.unique_clicks')),
          bounces_hard: eb('campaign_hourly.bounces_hard', '+', eb.ref('excluded.bounces_hard')),
          bounces_soft: eb('campaign_hourly.bounces_soft', '+', eb.ref('excluded.bounces_soft')),
          complaints: eb('campaign_hourly.complaints', '+', eb.ref('excluded.complaints')),
          unsubscribes: eb('campaign_hourly.unsubscribes', '+', eb.ref('excluded.unsubscribes')),
        })),
      )
      .execute();
  }
  for (const part of chunks(domains)) {
    await db
      .insertInto('campaign_domains')
      .values(part.map((d) => ({ account_id: d.accountId, campaign_id: d.campaignId, domain: d.domain, ...d.counts })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'campaign_id', 'domain']).doUpdateSet((eb) => ({
          sent: eb('campaign_domains.sent', '+', eb.ref('excluded.sent')),
          delivered: eb('campaign_domains.delivered', '+', eb.ref('excluded.delivered')),
          opens: eb('campaign_domains.opens', '+', eb.ref('excluded.opens')),
          clicks: eb('campaign_domains.clicks', '+', eb.ref('excluded.clicks')),
          bounces: eb('campaign_domains.bounces', '+', eb.ref('excluded.bounces')),
        })),
      )
      .execute();
  }
  for (const part of chunks(links)) {
    await db
      .insertInto('campaign_links')
      .values(part.map((l) => ({ account_id: l.accountId, campaign_id: l.campaignId, url: l.url, ...l.counts })))
      .onConflict((oc) =>
        oc.columns(['account_id', 'campaign_id', 'url']).doUpdateSet((eb) => ({
          total_clicks: eb('campaign_links.total_clicks', '+', eb.ref('excluded.total_clicks')),
          unique_clicks: eb('campaign_links.unique_clicks', '+', eb.ref('excluded.unique_clicks')),
        })),
      )
      .execute();
  }
}

// ---- What the send path reports

/**
 * Hard bounces the relay answered while sending (5xx): their records and their rollups. The
 * campaign's `bounced` counter is the send path's, counted with its other outcomes.
 */
export async function recordSendBounces(
  db: Db,
  accountId: string,
  campaignId: string,
  bounces: { messageId: string; contactId: string | null; email: string; reason: string; code: number }[],
  campaignRecords: Pick<CampaignRecords, 'addEngagementCounts'>,
): Promise<void> {
  if (!bounces.length) return;
  const at = new Date();
  await db
    .insertInto('bounces')
    .values(
      bounces.map((b) => ({
        id: newId('bnc'),
        account_id: accountId,
        campaign_id: campaignId,
        message_id: b.messageId,
        contact_id: b.contactId,
        email: b.email,
        type: 'hard' as const,
        reason: b.reason,
        diagnostic_code: `smtp; ${b.code}`,
        source: 'smtp' as const,
        occurred_at: at,
      })),
    )
    .execute();
  const rollups = new Rollups().hour(campaignId, accountId, at, { bounces_hard: bounces.length });
  for (const b of bounces) rollups.domain(campaignId, accountId, b.email, { bounces: 1 });
  await writeRollups(db, rollups, campaignRecords);
}

// ---- Erasure (GDPR): records stay for the counts, without address, IP, user agent or the texts that may quote the address.

/** The opens and clicks of a campaign being deleted (see `ForgetCampaign`); its bounces, unsubscribes and rollups go by foreign keys. */
export async function deleteHitsOf(db: Db, accountId: string, campaignId: string): Promise<void> {
  for (const table of ['opens', 'clicks'] as const) {
    await db.deleteFrom(table).where('account_id', '=', accountId).where('campaign_id', '=', campaignId).execute();
  }
}

/** Anonymises the contact's opens, clicks, bounces and unsubscribes; answers how many records. */
export async function eraseTrackingRecords(db: Db, accountId: string, contactId: string, email: string): Promise<number> {
  const lower = email.toLowerCase();
  let total = 0;
  for (const table of ['opens', 'clicks'] as const) {
    const rows = await db
      .updateTable(table)
      .set({ email: '', contact_id: null, ip: null, user_agent: null })
      .where('account_id', '=', accountId)
      .where((eb) => eb.or([eb('contact_id', '=', contactId), eb(sql<string>`lower(email)`, '=', lower)]))
      .returning('id')
      .execute();
    total += rows.length;
  }
  const bounces = await db
    .updateTable('bounces')
    .set({ email: '', contact_id: null, reason: null, diagnostic_code: null })
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('contact_id', '=', contactId), eb(sql<string>`lower(email)`, '=', lower)]))
    .returning('id')
    .execute();
  const unsubscribes = await db
    .updateTable('unsubscribes')
    .set({ email: '', contact_id: null })
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('contact_id', '=', contactId), eb(sql<string>`lower(email)`, '=', lower)]))
    .returning('id')
    .execute();
  return total + bounces.length + unsubscribes.length;
}

import type { Metrics } from '../metrics/metrics.ts';
import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import type { CopyValue } from '../db/copy.ts';
import type { Transactions } from '../db/transactions.ts';
import { idsByAccount } from '../db/by-account.ts';
import { sql } from 'kysely';
import type { PendingEvent } from '../events/types.ts';
import { append } from '../events/outbox.ts';
import { clientAddressOf, type TrustProxy } from '../net/client-address.ts';
import type { Logger } from '../logger.ts';
import { isMachineOpen, storedIp } from '../tracked-links/classify.ts';
import { emailEventData } from '../events/envelope.ts';
import { PendingRequests, type TrackedRequest } from './pending.ts';
import type { TokenSigner } from '../tracked-links/tokens.ts';
import { copyHits, Rollups, writeRollups } from './store.ts';
import type { CampaignRecords } from './campaign-records.ts';
import type { ContactRecords } from './contact-records.ts';
import { isTransactionalId, recordEngagement } from '../emails/engagement.ts';

interface Hit {
  messageId: string;
  at: Date;
  userAgent: string | null;
  ip: string | null;
  /** Present for clicks. */
  click?: { link: number; url: string };
}

export interface RecorderDeps {
  transactions: Transactions;
  signer: TokenSigner;
  /** Which forwarding proxies to believe about the client's address, as for the API. */
  trustProxy: TrustProxy;
  settings: Config['tracking'];
  log: Logger;
  campaigns: CampaignRecords;
  contacts: ContactRecords;
  metrics: Metrics;
}

/** A message as a batch reads it (locked), and what the batch sets on it. */
interface MessageState {
  id: string;
  account_id: string;
  campaign_id: string;
  contact_id: string | null;
  email: string;
  /** The A/B test's variant the message carries. */
  variant: string | null;
  /** Milliseconds since the epoch. */
  sent_ms: number | null;
  opened: boolean;
  human_opened: boolean;
  clicked: boolean;
  clicked_links: number[];
  /** The firsts this batch records. */
  opened_at?: Date;
  human_opened_at?: Date;
  clicked_at?: Date;
}

/**
 * Opens and clicks are answered at once and written here in batches: one transaction per flush
 * (every `flushMs`, and on shutdown). The trade-off, stated in docs/tracking.md: a process that is
 * killed (not stopped) loses at most the hits of its last interval.
 */
export class TrackingRecorder {
  private readonly pending = new PendingRequests();
  private readonly metrics: Metrics;
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly transactions: Transactions;
  private readonly signer: TokenSigner;
  private readonly trustProxy: TrustProxy;
  private readonly settings: Config['tracking'];
  private readonly log: Logger;
  private readonly campaigns: CampaignRecords;
  private readonly contacts: ContactRecords;

  constructor(deps: RecorderDeps) {
    this.transactions = deps.transactions;
    this.signer = deps.signer;
    this.trustProxy = deps.trustProxy;
    this.settings = deps.settings;
    this.log = deps.log;
    this.campaigns = deps.campaigns;
    this.contacts = deps.contacts;
    this.metrics = deps.metrics;
    this.timer = setInterval(() => void this.flush(), this.settings.flushMs);
    this.timer.unref();
  }

  add(request: TrackedRequest): void {
    this.pending.add(request);
  }

  /** Writes what is pending; concurrent calls wait for the flush under way and then write the rest. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (!this.pending.length) return;
    const batch = this.pending.take();
    this.flushing = this.write(batch)
      .then(() => this.metrics.trackingHitsWritten.inc(batch.length))
      .catch((err) => {
        this.log.error({ err, hits: batch.length }, 'writing tracking hits failed; they will be retried');
        this.pending.putBack(batch);
      })
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
    const dropped = this.pending.takeDropped();
    if (dropped) this.log.error({ dropped }, 'tracking hits dropped: more were waiting to be written than the buffer holds');
  }

  /** Hits answered and not written yet. */
  get buffered(): number {
    return this.pending.length;
  }

  /** Final flush on shutdown: no hit answered before this is lost. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.pending.length) await this.flush();
  }

  /** The hit a request made: null for an open whose token this deployment did not sign. */
  private hitOf(request: TrackedRequest): Hit | null {
    let messageId = request.click?.messageId;
    if (request.openToken !== undefined) {
      const token = this.signer.verify(request.openToken);
      if (token?.kind !== 'open') return null;
      messageId = token.messageId;
    }
    if (messageId === undefined) return null;
    const address = clientAddressOf(request.remoteAddress, request.forwardedFor, this.trustProxy);
    return { messageId, at: new Date(request.at), userAgent: request.userAgent, ip: storedIp(address, this.settings.ipMode), click: request.click };
  }

  private async write(requests: TrackedRequest[]): Promise<void> {
    const all = requests.map((r) => this.hitOf(r)).filter((h): h is Hit => h !== null);
    if (!all.length) return;
    const hits = all.filter((h) => !isTransactionalId(h.messageId));
    const transactional = all.filter((h) => isTransactionalId(h.messageId));
    const ids = [...new Set(hits.map((h) => h.messageId))].sort();
    await this.transactions.run(async (db) => {
      // Row locks in (account, id) order: flushes of several processes never deadlock on each
      // other. Times only as far as the batch needs them: node-postgres parses each timestamp
      // into a Date. A message whose recipient was erased (no address) records no more hits.
      const rows: MessageState[] = [];
      for (const [accountId, ofAccount] of await idsByAccount(db, 'messages', ids)) {
        const locked = await sql<MessageState>`
          select id, account_id, campaign_id, contact_id, email, variant, (extract(epoch from sent_at) * 1000)::float8 as sent_ms,
            opened_at is not null as opened, human_opened_at is not null as human_opened, clicked_at is not null as clicked, clicked_links
          from messages where account_id = ${accountId} and id = any(${ofAccount}::text[]) and email <> '' order by id for update`.execute(db);
        rows.push(...locked.rows);
      }
      const messages = new Map(rows.map((m) => [m.id, m]));
      const changed = new Set<MessageState>();
      const opens: CopyValue[][] = [];
      const clicks: CopyValue[][] = [];
      const rollups = new Rollups();
      const events = new Map<string, PendingEvent[]>();
      const emit = (m: MessageState, event: PendingEvent) => {
        const list = events.get(m.account_id) ?? [];
        list.push(event);
        events.set(m.account_id, list);
      };
      const recordOpen = (m: MessageState, hit: Hit) => {
        const machine = isMachineOpen(hit.userAgent, hit.at.getTime(), m.sent_ms, this.settings.machineOpenSeconds);
        const first = !m.opened;
        const firstHuman = !machine && !m.human_opened;
        if (first) {
          m.opened = true;
          m.opened_at = hit.at;
          rollups.campaign(m.campaign_id, m.account_id, { opened: 1 }).domain(m.campaign_id, m.account_id, m.email, { opens: 1 });
        }
        if (firstHuman) {
          m.human_opened = true;
          m.human_opened_at = hit.at;
        }
        if (first || firstHuman) changed.add(m);
        rollups.hour(m.campaign_id, m.account_id, hit.at, { opens: 1, unique_opens: first ? 1 : 0, human_opens: firstHuman ? 1 : 0 });
        opens.push([newId('opn'), m.account_id, m.campaign_id, m.id, m.contact_id, m.email, hit.at, hit.userAgent, hit.ip, machine, first, firstHuman]);
        emit(m, { type: 'email.opened', data: { ...emailEventData(m), first_open: first, machine, user_agent: hit.userAgent } });
      };
      for (const hit of hits) {
        const m = messages.get(hit.messageId);
        if (!m) continue;
        if (!hit.click) {
          recordOpen(m, hit);
          continue;
        }
        // A click proves the message was opened, pixel or not.
        if (!m.opened) recordOpen(m, hit);
        const first = !m.clicked;
        const firstForLink = !m.clicked_links.includes(hit.click.link);
        if (first) {
          m.clicked = true;
          m.clicked_at = hit.at;
          rollups.campaign(m.campaign_id, m.account_id, { clicked: 1 }).domain(m.campaign_id, m.account_id, m.email, { clicks: 1 });
        }
        if (firstForLink) m.clicked_links = [...m.clicked_links, hit.click.link];
        if (first || firstForLink) changed.add(m);
        rollups.hour(m.campaign_id, m.account_id, hit.at, { clicks: 1, unique_clicks: first ? 1 : 0 });
        rollups.link(m.campaign_id, m.account_id, hit.click.url, { total_clicks: 1, unique_clicks: firstForLink ? 1 : 0 });
        clicks.push([
          newId('clk'),
          m.account_id,
          m.campaign_id,
          m.id,
          m.contact_id,
          m.email,
          hit.click.link,
          hit.click.url,
          hit.at,
          hit.userAgent,
          hit.ip,
          first,
          firstForLink,
        ]);
        emit(m, { type: 'email.clicked', data: { ...emailEventData(m), url: hit.click.url, first_click: first, user_agent: hit.userAgent } });
      }
      await copyHits(db, opens, clicks);
      await writeRollups(db, rollups, this.campaigns);
      if (changed.size) {
        const list = [...changed];
        await this.campaigns.markEngaged(
          db,
          list.map((m) => ({
            id: m.id,
            accountId: m.account_id,
            openedAt: m.opened_at ?? null,
            humanOpenedAt: m.human_opened_at ?? null,
            clickedAt: m.clicked_at ?? null,
            clickedLinks: m.clicked_links,
          })),
        );
        // Engagement shows the address works: soft bounces before it no longer count as a row.
        await this.contacts.clearSoftBounces(
          db,
          list.flatMap((m) => (m.contact_id === null ? [] : [{ accountId: m.account_id, contactId: m.contact_id }])),
        );
      }
      for (const [accountId, list] of await recordEngagement(db, transactional, this.settings.machineOpenSeconds))
        events.set(accountId, [...(events.get(accountId) ?? []), ...list]);
      for (const [accountId, list] of events) await append(db, accountId, list);
    });
  }
}

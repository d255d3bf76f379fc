import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import { inTransaction, PER_ROW_LOOKUPS } from '../db/pool.ts';
import { insertEvents, type PendingEvent } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import type { CampaignRow } from '../campaigns/entities.ts';
import { TemplateThreadStopped, type TemplateThread } from '../campaigns/template-thread.ts';
import { campaignContent } from './render.ts';
import type { SendThreads, ThreadOutcome } from './send-threads.ts';
import { emailEventData } from '../events/envelope.ts';
import { sqlOnClient } from '../db/kysely.ts';
import { suppress } from '../contacts/store.ts';
import { recordSendBounces } from '../tracking/store.ts';

interface Claimed {
  id: string;
  contact_id: string | null;
  email: string;
  attempts: number;
  first_name: string | null;
  last_name: string | null;
  tags: string[] | null;
  attributes: Record<string, unknown> | null;
  contact_status: string | null;
}

type Result = { message: Claimed; outcome: ThreadOutcome | { kind: 'skipped'; reason: string } };

interface MessageUpdate {
  id: string;
  status: string;
  reason: string | null;
  nextAttemptAt: Date | null;
  sent: boolean;
}

function countDomain(domains: Map<string, { sent: number; delivered: number }>, email: string): void {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const counts = domains.get(domain) ?? { sent: 0, delivered: 0 };
  counts.sent++;
  counts.delivered++;
  domains.set(domain, counts);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Paces sends to `perSecond` in this process (0: no limit). */
class Pacer {
  private next = 0;
  private readonly gap: number;

  constructor(perSecond: number) {
    this.gap = perSecond > 0 ? 1000 / perSecond : 0;
  }

  async wait(): Promise<void> {
    if (!this.gap) return;
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.gap;
    if (at > now) await sleep(at - now);
  }
}

export function campaignFromRow(r: Record<string, any>): CampaignRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    subject: r.subject,
    fromEmail: r.from_email,
    fromName: r.from_name,
    replyTo: r.reply_to,
    content: r.content,
    textContent: r.text_content,
    preheader: r.preheader,
    audience: r.audience,
    trackOpens: r.track_opens,
    trackClicks: r.track_clicks,
    status: r.status,
    failureReason: r.failure_reason,
    scheduledAt: r.scheduled_at,
    startedAt: r.started_at,
    completedAt: r.completed_at,
    recipients: r.recipients,
    sent: r.sent,
    delivered: r.delivered,
    deferred: r.deferred,
    failed: r.failed,
    bounced: r.bounced,
    opened: r.opened,
    clicked: r.clicked,
    unsubscribed: r.unsubscribed,
    complained: r.complained,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  } as CampaignRow;
}

/**
 * Sends one campaign's queued messages, batch by batch, together with any other worker on the
 * same campaign: batches are claimed with SKIP LOCKED, so no message goes to two workers. A
 * message claimed by a worker that died is claimed again after the lease; at most the batches
 * in flight at the crash can be sent twice.
 */
export class CampaignSender {
  private readonly pool: Pool;
  private readonly threads: SendThreads;
  private readonly templates: TemplateThread;
  private readonly settings: Config['sending'];
  private readonly log: Logger;
  private readonly pacer: Pacer;

  constructor(pool: Pool, threads: SendThreads, templates: TemplateThread, settings: Config['sending'], log: Logger) {
    this.pool = pool;
    this.threads = threads;
    this.templates = templates;
    this.settings = settings;
    this.log = log;
    this.pacer = new Pacer(settings.ratePerSecond);
  }

  async run(campaignId: string, signal: AbortSignal, touch: () => Promise<void>): Promise<void> {
    this.log.info({ campaignId }, 'sending campaign');
    let campaign: CampaignRow | null = null;
    let cursor = '';
    let failingSince: number | null = null;
    while (!signal.aborted) {
      const { rows: [row] } = await this.pool.query('select * from campaigns where id = $1', [campaignId]);
      if (!row || row.status !== 'sending') return;
      if (!campaign) {
        campaign = campaignFromRow(row);
        // Templates are checked when saved; should one still not compile, stop rather than loop.
        // Compiled in the template thread: this thread also answers requests.
        const error = await this.templates.compileError(campaignContent(campaign)).catch((e: Error) => (e instanceof TemplateThreadStopped ? e : e.message));
        // Stopping with the process: the campaign goes on after the restart.
        if (error instanceof TemplateThreadStopped) return;
        if (error !== null) {
          await this.fail(campaignId, `The campaign's templates do not compile: ${error}`);
          return;
        }
      }
      let batch = await this.claim(campaignId, cursor);
      if (!batch.length && cursor) batch = await this.claim(campaignId, '');
      cursor = batch.at(-1)?.id ?? '';
      if (!batch.length) {
        if (await this.tryComplete(campaignId)) return;
        await sleep(250);
        continue;
      }
      const results = await this.deliver(campaign, batch);
      const transportErrors = results.filter((r) => r.outcome.kind === 'transport_error');
      if (transportErrors.length === results.length) {
        await this.release(batch);
        cursor = '';
        failingSince ??= Date.now();
        const error = (transportErrors[0].outcome as { error: string }).error;
        this.log.warn({ campaignId, error }, 'the relay is failing');
        if (Date.now() - failingSince > this.settings.failureSeconds * 1000) {
          await this.fail(campaignId, `The relay kept failing for ${this.settings.failureSeconds} s: ${error}`);
          return;
        }
        await sleep(1000);
        continue;
      }
      failingSince = null;
      await this.record(row.account_id, campaignId, results);
      await touch();
    }
  }

  /**
   * Claims the next batch after `cursor` (the last id this loop claimed), or from the start when
   * the cursor is empty. Passing the cursor matters: the claimable index keeps entries of sent
   * messages until vacuum, and a scan from the start of the campaign would step over all of
   * them on every claim. A pass from the start picks up retries that became due.
   */
  private async claim(campaignId: string, cursor: string): Promise<Claimed[]> {
    const { rows } = await this.pool.query(
      `with claimed as (
         update messages m set status = 'sending', claimed_at = now(), attempts = m.attempts + 1
         where m.id = any(array(
           select id from messages
           where campaign_id = $1 and id > $4 and (
             status = 'queued'
             or (status = 'deferred' and next_attempt_at <= now())
             or (status = 'sending' and claimed_at < now() - make_interval(secs => $3))
           )
           order by id limit $2
           for update skip locked
         ))
         returning m.id, m.contact_id, m.email, m.attempts
       )
       select claimed.*, c.first_name, c.last_name, c.tags, c.attributes, c.status as contact_status
       from claimed left join lateral (select first_name, last_name, tags, attributes, status from contacts where id = claimed.contact_id) c on true
       order by claimed.id`,
      [campaignId, this.settings.batchSize, this.settings.leaseSeconds, cursor],
    );
    return rows;
  }

  /** Renders and sends a batch, as many at once as the SMTP pool has connections. */
  private async deliver(campaign: CampaignRow, batch: Claimed[]): Promise<Result[]> {
    const results: Result[] = new Array(batch.length);
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const i = next++;
        const message = batch[i];
        if (!message.contact_id || message.contact_status === null) {
          results[i] = { message, outcome: { kind: 'skipped', reason: 'contact_deleted' } };
          continue;
        }
        if (message.contact_status !== 'subscribed') {
          results[i] = { message, outcome: { kind: 'skipped', reason: 'suppressed' } };
          continue;
        }
        await this.pacer.wait();
        const outcome = await this.threads.send(campaign, {
          messageId: message.id,
          email: message.email,
          firstName: message.first_name,
          lastName: message.last_name,
          tags: message.tags ?? [],
          attributes: message.attributes ?? {},
        });
        results[i] = { message, outcome };
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.poolSize, batch.length) }, worker));
    return results;
  }

  /** Puts a batch back untouched (the relay failed, not the recipients). */
  private async release(batch: Claimed[]): Promise<void> {
    await this.pool.query("update messages set status = 'queued', claimed_at = null, attempts = attempts - 1 where id = any($1)", [batch.map((m) => m.id)]);
  }

  /** Writes a batch's outcomes, counters, events and suppressions in one transaction. */
  private async record(accountId: string, campaignId: string, results: Result[]): Promise<void> {
    const updates: MessageUpdate[] = [];
    const events: PendingEvent[] = [];
    const bounced: { message: Claimed; reason: string; code: number }[] = [];
    const domains = new Map<string, { sent: number; delivered: number }>();
    const counts = { sent: 0, delivered: 0, deferred: 0, failed: 0, bounced: 0 };
    const now = new Date();
    for (const { message, outcome } of results) {
      const base = emailEventData({ ...message, campaign_id: campaignId });
      switch (outcome.kind) {
        case 'accepted':
          updates.push({ id: message.id, status: 'delivered', reason: null, nextAttemptAt: null, sent: true });
          events.push({ type: 'email.sent', data: { ...base, sent_at: now.toISOString() } }, { type: 'email.delivered', data: { ...base, smtp_response: outcome.response } });
          counts.sent++;
          counts.delivered++;
          countDomain(domains, message.email);
          break;
        case 'rejected':
          updates.push({ id: message.id, status: 'bounced', reason: outcome.response, nextAttemptAt: null, sent: false });
          events.push({ type: 'email.bounced', data: { ...base, bounce_type: 'hard', reason: outcome.response, diagnostic_code: `smtp; ${outcome.code}` } });
          bounced.push({ message, reason: outcome.response, code: outcome.code });
          counts.bounced++;
          break;
        case 'deferred': {
          if (message.attempts >= this.settings.maxAttempts) {
            updates.push({ id: message.id, status: 'failed', reason: `gave up after ${message.attempts} attempts: ${outcome.response}`, nextAttemptAt: null, sent: false });
            events.push({ type: 'email.failed', data: { ...base, reason: outcome.response } });
            counts.failed++;
          } else {
            const next = new Date(now.getTime() + this.settings.retrySeconds * 1000 * 2 ** (message.attempts - 1));
            updates.push({ id: message.id, status: 'deferred', reason: outcome.response, nextAttemptAt: next, sent: false });
            events.push({ type: 'email.deferred', data: { ...base, reason: outcome.response, attempt: message.attempts, next_attempt_at: next.toISOString() } });
            counts.deferred++;
          }
          break;
        }
        case 'render_failed':
        case 'refused': {
          const reason = outcome.kind === 'refused' ? `the relay refused it: ${outcome.response}` : `rendering failed: ${outcome.reason}`;
          updates.push({ id: message.id, status: 'failed', reason, nextAttemptAt: null, sent: false });
          events.push({ type: 'email.failed', data: { ...base, reason } });
          counts.failed++;
          break;
        }
        case 'skipped':
          // Suppressed or deleted since the audience was snapshotted: never sent, not counted.
          updates.push({ id: message.id, status: 'cancelled', reason: outcome.reason, nextAttemptAt: null, sent: false });
          break;
        case 'transport_error':
          // Mixed with successes: this one goes back to the queue as if never claimed.
          updates.push({ id: message.id, status: 'queued', reason: outcome.error, nextAttemptAt: null, sent: false });
          break;
      }
    }
    await inTransaction(this.pool, async (client) => {
      await client.query(PER_ROW_LOOKUPS);
      await client.query(
        `update messages m set status = u.status, reason = u.reason, next_attempt_at = u.next_at, claimed_at = null,
           sent_at = case when u.sent then now() else m.sent_at end,
           bounced_at = case when u.status = 'bounced' then now() else m.bounced_at end,
           attempts = case when u.status = 'queued' then m.attempts - 1 else m.attempts end
         from unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::boolean[]) as u(id, status, reason, next_at, sent)
         where m.id = u.id`,
        [updates.map((u) => u.id), updates.map((u) => u.status), updates.map((u) => u.reason), updates.map((u) => u.nextAttemptAt), updates.map((u) => u.sent)],
      );
      await client.query(
        `update campaigns set sent = sent + $2, delivered = delivered + $3, deferred = deferred + $4, failed = failed + $5, bounced = bounced + $6, updated_at = now()
         where id = $1`,
        [campaignId, counts.sent, counts.delivered, counts.deferred, counts.failed, counts.bounced],
      );
      await client.query(
        `insert into campaign_hourly as h (campaign_id, bucket, account_id, sent, delivered, deferred, failed)
         values ($1, date_trunc('hour', now(), 'UTC'), $2, $3, $4, $5, $6)
         on conflict (campaign_id, bucket) do update set sent = h.sent + excluded.sent, delivered = h.delivered + excluded.delivered,
           deferred = h.deferred + excluded.deferred, failed = h.failed + excluded.failed`,
        [campaignId, accountId, counts.sent, counts.delivered, counts.deferred, counts.failed],
      );
      if (domains.size) {
        const entries = [...domains].sort(([a], [b]) => (a < b ? -1 : 1));
        await client.query(
          `insert into campaign_domains as d (campaign_id, domain, sent, delivered)
           select $1, u.domain, u.sent, u.delivered from unnest($2::text[], $3::int[], $4::int[]) as u(domain, sent, delivered)
           on conflict (campaign_id, domain) do update set sent = d.sent + excluded.sent, delivered = d.delivered + excluded.delivered`,
          [campaignId, entries.map(([d]) => d), entries.map(([, c]) => c.sent), entries.map(([, c]) => c.delivered)],
        );
      }
      if (bounced.length) {
        // The campaign's `bounced` counter is in the counts above; the rest of the rollups here.
        const db = sqlOnClient(client);
        await recordSendBounces(db, accountId, campaignId, bounced.map((b) => ({ messageId: b.message.id, contactId: b.message.contact_id, email: b.message.email, reason: b.reason, code: b.code })));
        for (const b of bounced) {
          if (b.message.contact_id) events.push(...(await suppress(db, accountId, [b.message.contact_id], 'bounced', b.reason)));
        }
      }
      await insertEvents(client, accountId, events);
    });
  }

  private async tryComplete(campaignId: string): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      const { rows: [row] } = await client.query(
        `update campaigns set status = 'completed', completed_at = now(), updated_at = now()
         where id = $1 and status = 'sending'
           and not exists (select 1 from messages where campaign_id = $1 and status in ('queued', 'deferred', 'sending'))
         returning *`,
        [campaignId],
      );
      if (!row) return false;
      const c = campaignFromRow(row);
      await insertEvents(client, row.account_id, [
        {
          type: 'campaign.completed',
          data: {
            campaign_id: c.id,
            name: c.name,
            status: c.status,
            stats: { recipients: c.recipients, sent: c.sent, delivered: c.delivered, deferred: c.deferred, failed: c.failed, bounced: c.bounced, opened: c.opened, clicked: c.clicked, unsubscribed: c.unsubscribed, complained: c.complained },
          },
        },
      ]);
      return true;
    });
  }

  private async fail(campaignId: string, reason: string): Promise<void> {
    await inTransaction(this.pool, async (client) => {
      const { rows: [row] } = await client.query(
        "update campaigns set status = 'failed', failure_reason = $2, updated_at = now() where id = $1 and status = 'sending' returning *",
        [campaignId, reason],
      );
      if (row) await insertEvents(client, row.account_id, [{ type: 'campaign.failed', data: { campaign_id: row.id, name: row.name, status: 'failed', reason } }]);
    });
  }
}

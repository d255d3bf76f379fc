import type { Config } from '../config.ts';
import { inTransaction, type Pool } from '../db/pool.ts';
import { MATCHES_SQL } from '../events/patterns.ts';
import type { Logger } from '../logger.ts';
import { attemptDelivery, type AttemptOutcome } from './deliverer.ts';
import { signingSecrets } from './service.ts';
import type { SecretBox } from './signing.ts';
import { ENVELOPE_COLUMNS, eventEnvelope, type EventEnvelope } from '../events/envelope.ts';

const DISPATCH_BATCH = 1000;
/** Deliveries claimed ahead per endpoint, as a multiple of its concurrency: fewer claim queries. */
const PREFETCH = 4;
/** Outcomes are written together this often: one transaction for many deliveries. */
const RECORD_EVERY_MS = 20;

interface Claimed {
  id: string;
  webhook_id: string;
  attempts: number;
  url: string;
  envelope: EventEnvelope;
  secrets: string[];
}

/**
 * Webhook delivery in two steps, both safe with any number of processes:
 * dispatch turns outbox events into one pending delivery per matching endpoint; the pump claims
 * due deliveries (`SKIP LOCKED`, with a lease) and posts them, never more than
 * `concurrencyPerEndpoint` at once per endpoint in this process, so a slow endpoint only ever
 * waits for itself.
 */
export class WebhookWorker {
  private readonly inFlight = new Map<string, number>();
  private readonly queued = new Map<string, Claimed[]>();
  private outcomes: { delivery: Claimed; outcome: AttemptOutcome }[] = [];
  private recording: Promise<void> | null = null;
  private recordTimer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;
  private pumping = false;
  private pumpAgain = false;
  private stopped = false;
  private readonly pool: Pool;
  private readonly box: SecretBox;
  private readonly settings: Config['webhooks'];
  private readonly log: Logger;

  constructor(pool: Pool, box: SecretBox, settings: Config['webhooks'], log: Logger) {
    this.pool = pool;
    this.box = box;
    this.settings = settings;
    this.log = log;
  }

  start(): void {
    this.wake();
  }

  /** New events were committed (or time passed): dispatch them, then deliver what is due. */
  wake(): void {
    if (this.stopped) return;
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = this.dispatch()
      .catch((err) => this.log.warn({ err }, 'webhook dispatch failed'))
      .finally(() => {
        this.dispatching = null;
        this.pump();
        if (this.dispatchAgain) {
          this.dispatchAgain = false;
          this.wake();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.dispatching;
    await Promise.all(this.running);
    if (this.recordTimer) clearTimeout(this.recordTimer);
    await this.recordOutcomes();
  }

  private async dispatch(): Promise<void> {
    for (;;) {
      const count = await inTransaction(this.pool, async (client) => {
        const { rows } = await client.query(
          'select seq, id, account_id, type from events where not dispatched order by seq limit $1 for update skip locked',
          [DISPATCH_BATCH],
        );
        if (!rows.length) return 0;
        await client.query(
          `insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, status, next_retry_at)
           select sendline_id('whd'), w.id, e.account_id, e.id, e.type, 'pending', now()
           from unnest($1::text[], $2::text[], $3::text[]) as e(id, account_id, type)
           join webhooks w on w.account_id = e.account_id and w.active and e.type <> 'webhook.test' and ${MATCHES_SQL('w.events', 'e.type')}
           on conflict (webhook_id, event_id) do nothing`,
          [rows.map((r) => r.id), rows.map((r) => r.account_id), rows.map((r) => r.type)],
        );
        await client.query('update events set dispatched = true where not dispatched and seq = any($1)', [rows.map((r) => r.seq)]);
        return rows.length;
      });
      if (count < DISPATCH_BATCH) return;
    }
  }

  /** Claims more when this process holds fewer deliveries than it could work on. */
  private pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.claim()
      .then((batch) => {
        for (const delivery of batch) {
          const queue = this.queued.get(delivery.webhook_id) ?? [];
          queue.push(delivery);
          this.queued.set(delivery.webhook_id, queue);
        }
        this.drain();
        return batch.length;
      })
      .catch((err) => {
        this.log.warn({ err }, 'claiming webhook deliveries failed');
        return 0;
      })
      .then((claimed) => {
        this.pumping = false;
        if (this.pumpAgain || claimed > 0) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  /** Starts queued deliveries, never more than `concurrencyPerEndpoint` per endpoint at once. */
  private drain(): void {
    for (const [webhookId, queue] of this.queued) {
      while (queue.length && (this.inFlight.get(webhookId) ?? 0) < this.settings.concurrencyPerEndpoint && this.running.size < this.settings.concurrency) {
        const delivery = queue.shift()!;
        this.inFlight.set(webhookId, (this.inFlight.get(webhookId) ?? 0) + 1);
        const run = this.deliver(delivery).finally(() => {
          this.running.delete(run);
          this.inFlight.set(webhookId, this.inFlight.get(webhookId)! - 1);
          this.drain();
          if ((this.queued.get(webhookId)?.length ?? 0) < this.settings.concurrencyPerEndpoint) this.pump();
        });
        this.running.add(run);
      }
      if (!queue.length) this.queued.delete(webhookId);
    }
  }

  private held(): Map<string, number> {
    const held = new Map(this.inFlight);
    for (const [id, queue] of this.queued) held.set(id, (held.get(id) ?? 0) + queue.length);
    return held;
  }

  private async claim(): Promise<Claimed[]> {
    const held = this.held();
    const free = this.settings.concurrency * PREFETCH - [...held.values()].reduce((a, b) => a + b, 0);
    if (free <= 0) return [];
    const { rows } = await this.pool.query(
      `update webhook_deliveries d set locked_until = now() + make_interval(secs => $3)
       from (
         select id from (
           select c.id, row_number() over (partition by w.id order by c.next_retry_at) + coalesce(($2::jsonb ->> w.id)::int, 0) as slot
           from webhooks w cross join lateral (
             select x.id, x.next_retry_at from webhook_deliveries x
             where x.webhook_id = w.id and x.status = 'pending' and x.next_retry_at <= now() and (x.locked_until is null or x.locked_until < now())
             order by x.next_retry_at limit $1
             for update of x skip locked
           ) c
           where w.active
         ) ranked
         where slot <= $1
         limit $4
       ) picked
       where d.id = picked.id
       returning d.id, d.webhook_id, d.event_id, d.attempts`,
      // A claimed delivery may wait in this process's queue behind PREFETCH others: the lease covers that.
      [this.settings.concurrencyPerEndpoint * PREFETCH, JSON.stringify(Object.fromEntries(held)), (this.settings.timeoutMs / 1000) * (PREFETCH + 1) + 30, free],
    );
    if (!rows.length) return [];
    const [events, webhooks] = await Promise.all([
      this.pool.query(`select ${ENVELOPE_COLUMNS} from events where id = any($1)`, [rows.map((r) => r.event_id)]),
      this.pool.query('select * from webhooks where id = any($1)', [[...new Set(rows.map((r) => r.webhook_id))]]),
    ]);
    const eventById = new Map(events.rows.map((e) => [e.id, eventEnvelope(e)]));
    // Secrets unsealed once per endpoint, not per delivery.
    const endpointById = new Map(webhooks.rows.map((w) => [w.id, { url: w.url as string, secrets: signingSecrets(this.box, w) }]));
    return rows
      .filter((r) => eventById.has(r.event_id) && endpointById.has(r.webhook_id))
      .map((r) => ({ ...r, ...endpointById.get(r.webhook_id)!, envelope: eventById.get(r.event_id)! }));
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const outcome = await attemptDelivery(delivery.url, delivery.envelope, delivery.secrets, this.settings);
    this.outcomes.push({ delivery, outcome });
    this.recordTimer ??= setTimeout(() => void this.recordOutcomes(), RECORD_EVERY_MS);
  }

  private async recordOutcomes(): Promise<void> {
    this.recordTimer = null;
    while (this.recording) await this.recording;
    const batch = this.outcomes;
    this.outcomes = [];
    if (!batch.length) return;
    this.recording = this.record(batch)
      .catch((err) => this.log.error({ err, deliveries: batch.length }, 'recording webhook deliveries failed; their leases will expire and they will be sent again'))
      .finally(() => {
        this.recording = null;
      });
    await this.recording;
  }

  /** The retry schedule, the 410 rule and the failing-for-days rule, applied to a batch of attempts. */
  private async record(batch: { delivery: Claimed; outcome: AttemptOutcome }[]): Promise<void> {
    const schedule = this.settings.retrySchedule;
    const rows = batch.map(({ delivery, outcome }) => {
      const attempts = delivery.attempts + 1;
      const gone = outcome.statusCode === 410;
      const retryIn = !outcome.success && !gone && attempts <= schedule.length ? schedule[attempts - 1] * (0.9 + Math.random() * 0.2) : null;
      return { delivery, outcome, attempts, gone, retryIn, status: outcome.success ? 'succeeded' : retryIn === null ? 'failed' : 'pending' };
    });
    const endpoints = new Map<string, { success: boolean; failure: boolean; gone: boolean }>();
    for (const r of rows) {
      const e = endpoints.get(r.delivery.webhook_id) ?? { success: false, failure: false, gone: false };
      if (r.outcome.success) e.success = true;
      else e.failure = true;
      if (r.gone) e.gone = true;
      endpoints.set(r.delivery.webhook_id, e);
    }
    const ids = [...endpoints.keys()].sort();
    // Endpoints first, as deleting an endpoint locks it and then its deliveries: the same order
    // on both sides, so the two never deadlock.
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `update webhooks w set
           last_success_at = case when u.success then now() else w.last_success_at end,
           last_failure_at = case when u.failure then now() else w.last_failure_at end,
           failing_since = case when u.success then null when u.failure then coalesce(w.failing_since, now()) else w.failing_since end,
           active = case when u.gone or (not u.success and coalesce(w.failing_since, now()) <= now() - make_interval(secs => $5)) then false else w.active end,
           disabled_reason = case when u.gone then 'gone' when not u.success and coalesce(w.failing_since, now()) <= now() - make_interval(secs => $5) then 'failing' else w.disabled_reason end,
           updated_at = now()
         from unnest($1::text[], $2::boolean[], $3::boolean[], $4::boolean[]) as u(id, success, failure, gone)
         where w.id = u.id`,
        [ids, ids.map((id) => endpoints.get(id)!.success), ids.map((id) => endpoints.get(id)!.failure), ids.map((id) => endpoints.get(id)!.gone), this.settings.disableAfterSeconds],
      );
      await client.query(
        `update webhook_deliveries d set status = u.status, attempts = u.attempts, status_code = u.code, latency_ms = u.latency, response_excerpt = u.excerpt, error = u.error,
           next_retry_at = case when u.retry_in is null then null else now() + make_interval(secs => u.retry_in) end, locked_until = null, updated_at = now()
         from unnest($1::text[], $2::text[], $3::int[], $4::int[], $5::int[], $6::text[], $7::text[], $8::float8[]) as u(id, status, attempts, code, latency, excerpt, error, retry_in)
         where d.id = u.id`,
        [rows.map((r) => r.delivery.id), rows.map((r) => r.status), rows.map((r) => r.attempts), rows.map((r) => r.outcome.statusCode), rows.map((r) => r.outcome.latencyMs),
          rows.map((r) => r.outcome.excerpt), rows.map((r) => r.outcome.error), rows.map((r) => r.retryIn)],
      );
    });
  }
}

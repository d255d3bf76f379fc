import type { Config } from '../config.ts';
import { inTransaction, type Pool } from '../db/pool.ts';
import { MATCHES_SQL } from '../events/patterns.ts';
import type { Logger } from '../logger.ts';
import { attemptDelivery, type AttemptOutcome } from './deliverer.ts';
import { signingSecrets } from './service.ts';
import type { SecretBox } from './signing.ts';

const DISPATCH_BATCH = 1000;
const TICK_MS = 500;

interface Claimed {
  id: string;
  webhook_id: string;
  attempts: number;
  url: string;
  envelope: { id: string; type: string; created_at: string; account_id: string; data: unknown };
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
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
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
    this.timer = setInterval(() => this.wake(), TICK_MS);
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
    if (this.timer) clearInterval(this.timer);
    await this.dispatching;
    await Promise.all(this.running);
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
        await client.query('update events set dispatched = true where seq = any($1)', [rows.map((r) => r.seq)]);
        return rows.length;
      });
      if (count < DISPATCH_BATCH) return;
    }
  }

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
          this.inFlight.set(delivery.webhook_id, (this.inFlight.get(delivery.webhook_id) ?? 0) + 1);
          const run = this.deliver(delivery).finally(() => {
            this.running.delete(run);
            this.inFlight.set(delivery.webhook_id, this.inFlight.get(delivery.webhook_id)! - 1);
            this.pump();
          });
          this.running.add(run);
        }
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

  private async claim(): Promise<Claimed[]> {
    const free = this.settings.concurrency - this.running.size;
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
      [this.settings.concurrencyPerEndpoint, JSON.stringify(Object.fromEntries(this.inFlight)), this.settings.timeoutMs / 1000 + 30, free],
    );
    if (!rows.length) return [];
    const [events, webhooks] = await Promise.all([
      this.pool.query('select id, type, created_at, account_id, data from events where id = any($1)', [rows.map((r) => r.event_id)]),
      this.pool.query('select * from webhooks where id = any($1)', [[...new Set(rows.map((r) => r.webhook_id))]]),
    ]);
    const eventById = new Map(events.rows.map((e) => [e.id, { ...e, created_at: e.created_at.toISOString() }]));
    const webhookById = new Map(webhooks.rows.map((w) => [w.id, w]));
    return rows
      .filter((r) => eventById.has(r.event_id) && webhookById.has(r.webhook_id))
      .map((r) => {
        const webhook = webhookById.get(r.webhook_id)!;
        return { ...r, url: webhook.url, envelope: eventById.get(r.event_id)!, secrets: signingSecrets(this.box, webhook) };
      });
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const outcome = await attemptDelivery(delivery.url, delivery.envelope, delivery.secrets, this.settings);
    await this.record(delivery, outcome).catch((err) => this.log.error({ err, delivery: delivery.id }, 'recording a webhook delivery failed'));
  }

  /** The retry schedule, the 410 rule and the failing-for-days rule, applied to one attempt. */
  private async record(delivery: Claimed, outcome: AttemptOutcome): Promise<void> {
    const attempts = delivery.attempts + 1;
    const schedule = this.settings.retrySchedule;
    const gone = outcome.statusCode === 410;
    const retryIn = !outcome.success && !gone && attempts <= schedule.length ? schedule[attempts - 1] * (0.9 + Math.random() * 0.2) : null;
    const status = outcome.success ? 'succeeded' : retryIn === null ? 'failed' : 'pending';
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `update webhook_deliveries set status = $2, attempts = $3, status_code = $4, latency_ms = $5, response_excerpt = $6, error = $7,
           next_retry_at = case when $8::float8 is null then null else now() + make_interval(secs => $8::float8) end, locked_until = null, updated_at = now()
         where id = $1`,
        [delivery.id, status, attempts, outcome.statusCode, outcome.latencyMs, outcome.excerpt, outcome.error, retryIn],
      );
      if (outcome.success) {
        await client.query('update webhooks set last_success_at = now(), failing_since = null where id = $1', [delivery.webhook_id]);
      } else {
        await client.query(
          `update webhooks set last_failure_at = now(), failing_since = coalesce(failing_since, now()),
             active = case when $2 or coalesce(failing_since, now()) <= now() - make_interval(secs => $3) then false else active end,
             disabled_reason = case when $2 then 'gone' when coalesce(failing_since, now()) <= now() - make_interval(secs => $3) then 'failing' else disabled_reason end,
             updated_at = now()
           where id = $1`,
          [delivery.webhook_id, gone, this.settings.disableAfterSeconds],
        );
      }
    });
  }
}

import { traced } from '../tracing/spans.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { envelopesByIds, lockUndispatched, markDispatched } from '../events/dispatch.ts';
import type { Logger } from '../logger.ts';
import { attemptDelivery, type AttemptOutcome } from './deliverer.ts';
import { signingSecrets } from './service.ts';
import type { SecretBox } from '../secrets/secret-box.ts';
import { eventEnvelope, type EventEnvelope } from '../events/envelope.ts';
import { claimDue, fanOut, recordAttempts, webhooksByIds, type ClaimedDelivery, type DeliveryOutcome, type EndpointOutcome } from './store.ts';

const DISPATCH_BATCH = 1000;
/** Deliveries claimed ahead per endpoint, as a multiple of its concurrency: fewer claim queries. */
const PREFETCH = 4;
/** Outcomes are written together this often: one transaction for many deliveries. */
const RECORD_EVERY_MS = 20;

interface Claimed extends ClaimedDelivery {
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
  private readonly metrics: Metrics;
  private recording: Promise<void> | null = null;
  private recordTimer: NodeJS.Timeout | null = null;
  private readonly running = new Set<Promise<void>>();
  private dispatching: Promise<void> | null = null;
  private dispatchAgain = false;
  private pumping = false;
  private pumpAgain = false;
  private stopped = false;
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly box: SecretBox;
  private readonly settings: Config['webhooks'];
  private readonly log: Logger;

  constructor(db: Db, transactions: Transactions, box: SecretBox, settings: Config['webhooks'], log: Logger, metrics: Metrics) {
    this.metrics = metrics;
    this.db = db;
    this.transactions = transactions;
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
      const count = await this.transactions.run(async (tx) => {
        const events = await lockUndispatched(tx, DISPATCH_BATCH);
        await fanOut(tx, events);
        await markDispatched(tx, events);
        return events.length;
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
    void this.claim()
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
    const rows = await claimDue(this.db, {
      perEndpoint: this.settings.concurrencyPerEndpoint * PREFETCH,
      held,
      // A claimed delivery may wait in this process's queue behind PREFETCH others: the lease covers that.
      leaseSeconds: (this.settings.timeoutMs / 1000) * (PREFETCH + 1) + 30,
      total: free,
    });
    if (!rows.length) return [];
    const [events, webhooks] = await Promise.all([
      envelopesByIds(
        this.db,
        rows.map((r) => r.event_id),
      ),
      webhooksByIds(this.db, [...new Set(rows.map((r) => r.webhook_id))]),
    ]);
    const eventById = new Map(events.map((e) => [e.id, eventEnvelope(e)]));
    // Secrets unsealed once per endpoint, not per delivery.
    const endpointById = new Map(webhooks.map((w) => [w.id, { url: w.url, secrets: signingSecrets(this.box, w) }]));
    return rows.flatMap((r) => {
      const endpoint = endpointById.get(r.webhook_id);
      const envelope = eventById.get(r.event_id);
      return endpoint && envelope ? [{ ...r, ...endpoint, envelope }] : [];
    });
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const outcome = await traced('webhook delivery', { 'sendline.webhook_id': delivery.webhook_id }, () =>
      attemptDelivery(delivery.url, delivery.envelope, delivery.secrets, this.settings),
    );
    this.outcomes.push({ delivery, outcome });
    this.metrics.webhookDeliveries.observe({ outcome: outcome.success ? 'success' : 'failure' }, outcome.latencyMs / 1000);
    this.recordTimer ??= setTimeout(() => void this.recordOutcomes(), RECORD_EVERY_MS);
  }

  private async recordOutcomes(): Promise<void> {
    this.recordTimer = null;
    while (this.recording) await this.recording;
    const batch = this.outcomes;
    this.outcomes = [];
    if (!batch.length) return;
    this.recording = this.record(batch)
      .catch((err) =>
        this.log.error({ err, deliveries: batch.length }, 'recording webhook deliveries failed; their leases will expire and they will be sent again'),
      )
      .finally(() => {
        this.recording = null;
      });
    await this.recording;
  }

  /** The retry schedule, the 410 rule and the failing-for-days rule, applied to a batch of attempts. */
  private async record(batch: { delivery: Claimed; outcome: AttemptOutcome }[]): Promise<void> {
    const schedule = this.settings.retrySchedule;
    const deliveries: DeliveryOutcome[] = [];
    const endpoints = new Map<string, EndpointOutcome>();
    for (const { delivery, outcome } of batch) {
      const attempts = delivery.attempts + 1;
      const gone = outcome.statusCode === 410;
      const retryInSeconds = !outcome.success && !gone && attempts <= schedule.length ? schedule[attempts - 1] * (0.9 + Math.random() * 0.2) : null;
      const status = outcome.success ? 'succeeded' : retryInSeconds === null ? 'failed' : 'pending';
      deliveries.push({
        id: delivery.id,
        accountId: delivery.account_id,
        status,
        attempts,
        retryInSeconds,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        excerpt: outcome.excerpt,
        error: outcome.error,
      });
      const endpoint = endpoints.get(delivery.webhook_id) ?? {
        accountId: delivery.account_id,
        webhookId: delivery.webhook_id,
        success: false,
        failure: false,
        gone: false,
      };
      if (outcome.success) endpoint.success = true;
      else endpoint.failure = true;
      if (gone) endpoint.gone = true;
      endpoints.set(delivery.webhook_id, endpoint);
    }
    await this.transactions.run((tx) => recordAttempts(tx, [...endpoints.values()], deliveries, this.settings.disableAfterSeconds));
  }
}

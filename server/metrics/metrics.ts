import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Stream } from '../config.ts';
import { VERSION } from '../version.ts';

/** A message's recorded status after an attempt, as counted: a relay failure alone (requeued) is none. */
const OUTCOMES: Record<string, string | undefined> = { delivered: 'sent', deferred: 'deferred', failed: 'failed', bounced: 'bounced' };

/** How long a scrape waits for a gauge's reading. */
const READ_TIMEOUT_MS = 3000;

/** `promise`, or a rejection after `ms`. */
export function withinTime<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A gauge's value, or its values by label. */
type Reading<L extends string> = number | [Partial<Record<L, string>>, number][];

/**
 * The process's Prometheus metrics. Labels take bounded values only: route templates, streams,
 * relay names from the configuration, outcomes; never an id or an address.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'sendline_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'sendline_http_request_duration_seconds',
    help: 'Time from a request to the end of its answer, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly messages = new Counter({
    name: 'sendline_messages_total',
    help: "Messages' attempts by what the relay answered: sent (accepted), deferred (4xx, retried), failed, bounced (5xx).",
    labelNames: ['stream', 'relay', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly feedbackReports = new Counter({
    name: 'sendline_feedback_reports_total',
    help: 'Bounce and complaint reports received after sending.',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });
  readonly importRows = new Counter({
    name: 'sendline_import_rows_total',
    help: 'Rows of contact imports processed, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly trackingHitsWritten = new Counter({
    name: 'sendline_tracking_hits_written_total',
    help: 'Opens and clicks written to the database.',
    registers: [this.registry],
  });
  readonly webhookDeliveries = new Histogram({
    name: 'sendline_webhook_delivery_duration_seconds',
    help: 'Time of a webhook delivery attempt, from request to answer or failure.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named as counters (promtool check metrics refuses them), each the sum of a gauge kept.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    new Gauge({ name: 'sendline_build_info', help: 'The running release.', labelNames: ['version'], registers: [this.registry] }).set({ version: VERSION }, 1);
  }

  /** Counts recorded attempts by their status; a requeued one (`queued`: the relay failed) is none. */
  countMessages(stream: Stream, attempts: { relay?: string; status: string }[]): void {
    for (const { relay, status } of attempts) {
      const outcome = OUTCOMES[status];
      // No relay: the message failed to render before any relay had it.
      if (outcome) this.messages.inc({ stream, relay: relay ?? 'none', outcome });
    }
  }

  /** A gauge read when scraped; `read` may query, and answers a value or values by label. */
  gauge<L extends string>(name: string, help: string, read: () => Reading<L> | Promise<Reading<L>>, labelNames: readonly L[] = []): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        // Read at once (not a tick later): the pool's gauges see it before the scrape's queries.
        // A reading that fails or hangs (the database down) is NaN, or no samples by label,
        // and leaves the rest of the scrape intact.
        const value = await withinTime(Promise.resolve(read()), READ_TIMEOUT_MS).catch((): Reading<L> => (labelNames.length ? [] : NaN));
        this.reset();
        if (typeof value === 'number') this.set(value);
        else for (const [labels, count] of value) this.set(labels, count);
      },
    });
  }
}

import type { Pool } from './db/pool.ts';
import type { Db } from './db/kysely.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { Queue } from './jobs/queue.ts';
import type { TrackingRecorder } from './tracking/recorder.ts';
import { messages } from './campaigns/store.ts';
import { emails } from './emails/store.ts';
import { deliveryBacklog } from './webhooks/store.ts';
import { importStore } from './imports/store.ts';
import { enrollments } from './automations/store.ts';
import { undispatchedCount } from './events/dispatch.ts';

/**
 * The gauges read as `/metrics` is scraped: the queues' depths (of the whole database: every
 * process answers the same), the tracking buffer and the pool (this process's).
 */
export function registerGauges(metrics: Metrics, parts: { db: Db; pool: Pool; queue: Queue; recorder: TrackingRecorder }): void {
  const { db, pool, queue, recorder } = parts;
  // Read first, as the scrape starts: its own queries below queue for connections as they start.
  metrics.gauge(
    'sendline_db_pool_connections',
    "Connections of this process's database pool, in use or idle.",
    () => [
      [{ state: 'in_use' }, pool.totalCount - pool.idleCount],
      [{ state: 'idle' }, pool.idleCount],
    ],
    ['state'],
  );
  metrics.gauge('sendline_db_pool_waiting', 'Queries waiting for a connection of the pool.', () => pool.waitingCount);
  metrics.gauge(
    'sendline_messages_queued',
    'Messages due to be sent now and not sent yet, by stream.',
    async () => {
      const [campaign, { transactional, automation }] = await Promise.all([messages.dueCount(db), emails.dueByStream(db)]);
      return [
        [{ stream: 'campaign' }, campaign],
        [{ stream: 'transactional' }, transactional],
        [{ stream: 'automation' }, automation],
      ];
    },
    ['stream'],
  );
  metrics.gauge('sendline_outbox_events_pending', 'Events committed and not yet dispatched to webhook endpoints.', () => undispatchedCount(db));
  metrics.gauge('sendline_jobs_due', 'Background jobs due and not taken by any process.', () => queue.dueCount());
  // Both are read at the same moment of a scrape: they share one query, forgotten once it has answered.
  let backlog: ReturnType<typeof deliveryBacklog> | null = null;
  const deliveries = () => (backlog ??= deliveryBacklog(db).finally(() => setImmediate(() => (backlog = null))));
  metrics.gauge('sendline_webhook_deliveries_pending', 'Webhook deliveries waiting to be sent.', async () => (await deliveries()).pending);
  metrics.gauge(
    'sendline_webhook_deliveries_failing',
    'Webhook deliveries waiting for a retry after a failed attempt.',
    async () => (await deliveries()).failing,
  );
  metrics.gauge('sendline_imports_running', 'Contact imports running.', () => importStore.runningCount(db));
  metrics.gauge('sendline_automation_steps_due', 'Automation steps due to run now.', () => enrollments.dueCount(db));
  metrics.gauge('sendline_tracking_hits_buffered', 'Opens and clicks answered and not written to the database yet.', () => recorder.buffered);
}

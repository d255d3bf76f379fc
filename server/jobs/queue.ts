import { traced } from '../tracing/spans.ts';
import { Agenda, type Job } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';
import type { JobData, JobPayloads } from './payloads.ts';

export interface JobOptions {
  /** A worker that dies holding the job keeps it this long before another takes it over. */
  lockSeconds: number;
  concurrency: number;
  /**
   * Renew the lock while the job runs, so it can run longer than `lockSeconds` and only a dead
   * process's jobs are taken over; and delete the job once done (unless it asked to run again).
   */
  leased?: boolean;
  /** Called when this process is told such a job is coming (`coming`): time to get ready for it. */
  onComing?: () => void;
  /** False for a job that runs for hours: its work is traced in spans of its own instead of one trace. */
  traced?: boolean;
}

/** Runs the job again as soon as a worker is free (e.g. when this process stops mid-way). */
export function runAgain(job: Job<unknown>): void {
  job.attrs.nextRunAt = new Date();
}

const PERIODIC_LOCK_MS = 5000;

/**
 * The one mechanism for background work: Agenda on the same PostgreSQL, woken by LISTEN/NOTIFY.
 * One-off jobs (`enqueue`, `ensure`) and periodic ones (`every`) are rows in its table, locked by
 * the process that runs them, so any number of processes share them.
 */
export class Queue<Jobs extends { [name: string]: JobData } = JobPayloads> {
  private readonly agenda: Agenda;
  private readonly log: Logger;
  private readonly periodic: { name: string; intervalMs: number }[] = [];
  private readonly onComing = new Map<string, () => void>();
  private started = false;

  private readonly pool: Pool;

  private constructor(agenda: Agenda, pool: Pool, log: Logger) {
    this.agenda = agenda;
    this.pool = pool;
    this.log = log;
  }

  /** Connects, creating the queue's tables if needed (Agenda does so as it connects). */
  static async open<Jobs extends { [name: string]: JobData } = JobPayloads>(pool: Pool, log: Logger): Promise<Queue<Jobs>> {
    const backend = new PostgresBackend({ pool });
    // Its LISTEN connection reports the database going away at shutdown as an 'error' event,
    // which would otherwise crash the process.
    (backend.notificationChannel as unknown as NodeJS.EventEmitter | undefined)?.on('error', (err) =>
      log.warn({ err }, 'job queue notifications lost their connection'),
    );
    const agenda = new Agenda({ backend, processEvery: 1000 });
    agenda.on('error', (err) => log.error({ err }, 'job queue error'));
    await agenda.ready;
    return new Queue<Jobs>(agenda, pool, log);
  }

  /** Jobs due and not taken by any process: more than a moment's worth means the workers fall behind. */
  async dueCount(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      'select count(*)::int as n from agenda_jobs where next_run_at <= now() and locked_at is null and not disabled',
    );
    return rows[0].n;
  }

  define<N extends keyof Jobs & string>(name: N, handler: (data: Jobs[N], job: Job<Jobs[N]>) => Promise<void>, options: JobOptions): void {
    if (options.onComing) this.onComing.set(name, options.onComing);
    // One-off jobs are traced; the periodic ones (ticks of a second or so) would be most of the spans.
    const traceable = (job: Job<Jobs[N]>) =>
      options.traced === false ? handler(job.attrs.data, job) : traced(`job ${name}`, { 'sendline.job': name }, () => handler(job.attrs.data, job));
    this.agenda.define<Jobs[N]>(name, (job) => this.run(name, job, options.leased ? options.lockSeconds * 1000 : 0, () => traceable(job)), {
      lockLifetime: options.lockSeconds * 1000,
      // A process locks no more jobs than it runs, so the others get theirs.
      concurrency: options.concurrency,
      lockLimit: options.concurrency,
      removeOnComplete: options.leased ?? false,
    });
  }

  /**
   * Runs `handler` every `intervalMs` in one process at a time, whichever is free: one row per
   * name, however many processes declare it (scheduled when the queue starts). The lock is
   * renewed while it runs, so a process that dies running it holds it for 5 s at most.
   */
  every(name: string, intervalMs: number, handler: () => Promise<void>): void {
    this.agenda.define(name, (job) => this.run(name, job, PERIODIC_LOCK_MS, handler).catch(() => {}), {
      lockLifetime: PERIODIC_LOCK_MS,
      concurrency: 1,
      lockLimit: 1,
    });
    this.periodic.push({ name, intervalMs });
  }

  /** Runs a job's handler, renewing its lock of `lockMs` meanwhile (0: not renewed); logs a failure. */
  private async run<T>(name: string, job: Job<T>, lockMs: number, handler: () => Promise<void>): Promise<void> {
    const heartbeat = lockMs
      ? setInterval(() => void job.touch().catch((err: unknown) => this.log.warn({ err, job: name }, 'renewing a job lock failed')), lockMs / 3)
      : null;
    try {
      await handler();
    } catch (err) {
      this.log.error({ err, job: name }, 'job failed');
      throw err;
    } finally {
      if (heartbeat) clearInterval(heartbeat);
    }
  }

  /**
   * Tells this process's worker for `name`, if it runs one, that such a job is about to be
   * queued, so that it gets ready while the caller's transaction runs (a process that only
   * answers requests has none: nothing happens).
   */
  coming(name: keyof Jobs & string): void {
    try {
      this.onComing.get(name)?.();
    } catch (err) {
      // Only a head start: the job itself gets ready when it runs.
      this.log.warn({ err, job: name }, 'getting ready for a coming job failed');
    }
  }

  async enqueue<N extends keyof Jobs & string>(name: N, data: Jobs[N]): Promise<void> {
    await this.agenda.now(name, data);
  }

  /**
   * Makes sure one job identified by `key` (fields of `data`) is due now: creates it, or moves
   * the existing one to now. A running one goes on running; none is duplicated by asking again.
   */
  async ensure<N extends keyof Jobs & string>(name: N, data: Jobs[N], key: (keyof Jobs[N] & string)[]): Promise<void> {
    const unique = Object.fromEntries(key.map((field) => [`data.${field}`, data[field]]));
    await this.agenda.create(name, data).unique(unique).schedule(new Date()).save();
  }

  /** Starts processing jobs in this process (the `worker` and `all` roles). */
  async start(): Promise<void> {
    for (const { name, intervalMs } of this.periodic) await this.agenda.every(intervalMs, name);
    await this.agenda.start();
    this.started = true;
  }

  /** Lets running jobs finish (up to `timeoutMs`), then stops; what is left is unlocked for others. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.started) await this.agenda.drain(timeoutMs);
    await this.agenda.stop();
  }
}

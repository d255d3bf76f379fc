import { Agenda, type Job } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import type { Pool } from '../db/pool.ts';
import type { Logger } from '../logger.ts';

export interface JobOptions {
  /** A worker that dies holding the job keeps it this long before another takes it over. */
  lockSeconds: number;
  concurrency: number;
}

/** The job queue: Agenda on the same PostgreSQL, woken by LISTEN/NOTIFY. */
export class Queue {
  private readonly agenda: Agenda;
  private readonly log: Logger;
  private started = false;

  private constructor(agenda: Agenda, log: Logger) {
    this.agenda = agenda;
    this.log = log;
  }

  /** Connects, creating the queue's tables if needed (Agenda does so as it connects). */
  static async open(pool: Pool, log: Logger): Promise<Queue> {
    const backend = new PostgresBackend({ pool });
    // Its LISTEN connection reports the database going away at shutdown as an 'error' event,
    // which would otherwise crash the process.
    (backend.notificationChannel as unknown as NodeJS.EventEmitter | undefined)?.on('error', (err) => log.warn({ err }, 'job queue notifications lost their connection'));
    const agenda = new Agenda({ backend, processEvery: 1000 });
    agenda.on('error', (err) => log.error({ err }, 'job queue error'));
    await agenda.ready;
    return new Queue(agenda, log);
  }

  define<T>(name: string, handler: (data: T, job: Job<T>) => Promise<void>, options: JobOptions): void {
    this.agenda.define<T>(
      name,
      async (job) => {
        try {
          await handler(job.attrs.data, job);
        } catch (err) {
          this.log.error({ err, job: name }, 'job failed');
          throw err;
        }
      },
      // A process locks no more jobs than it runs, so the others get theirs.
      { lockLifetime: options.lockSeconds * 1000, concurrency: options.concurrency, lockLimit: options.concurrency },
    );
  }

  async enqueue<T>(name: string, data: T): Promise<void> {
    await this.agenda.now(name, data);
  }

  /** Starts processing jobs in this process (the `worker` and `all` roles). */
  async start(): Promise<void> {
    await this.agenda.start();
    this.started = true;
  }

  /** Lets running jobs finish (up to `timeoutMs`), then stops; what is left is unlocked for others. */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.started) await this.agenda.drain(timeoutMs);
    await this.agenda.stop();
  }
}

export type { Job };

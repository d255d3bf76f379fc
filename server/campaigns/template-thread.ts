import { Worker } from 'node:worker_threads';
import type { FieldError } from '../http/problem.ts';
import type { CampaignContent, Recipient } from '../sending/render.ts';
import type { TemplateFields } from './template.ts';

export interface TemplateThreadData {
  publicUrl: string;
  jwtSecret: string;
}

/** A test send's messages: each built (its envelope and MIME text), or why it could not be. */
export type TestMessageOrFailure = { envelope: { from: string; to: string }; raw: string } | { failed: string };

export type TemplateJob =
  | { kind: 'errors'; fields: TemplateFields }
  | { kind: 'compile'; campaign: CampaignContent }
  | { kind: 'test'; campaign: CampaignContent; recipients: Recipient[] };

/** A job's answer: its result, or the message of what it threw. */
export type TemplateAnswer = { id: number; result: unknown } | { id: number; error: string };

/** Far longer than any bounded job takes on 1 MB of content (about 2 s on an idle core): past it, the thread is ended. */
const JOB_LIMIT_MS = 30_000;
const IDLE_MS = 60_000;
const THREAD_OLD_GENERATION_MB = 256;

interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Template work that grows with the content (parsing Liquid, deriving the text part, rendering
 * and building test messages),
 * done in a thread of its own so that the thread answering requests never waits for it: saving
 * or test-sending 1 MB of hostile content would otherwise hold every request for seconds. The
 * thread starts on first use and ends after a minute without work.
 */
export class TemplateThread {
  private readonly data: TemplateThreadData;
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(data: TemplateThreadData) {
    this.data = data;
  }

  /** Every template field that does not parse; empty when all do. */
  errors(fields: TemplateFields): Promise<FieldError[]> {
    return this.run({ kind: 'errors', fields }) as Promise<FieldError[]>;
  }

  /** Why the campaign's templates do not compile, or null when they do. */
  compileError(campaign: CampaignContent): Promise<string | null> {
    return this.run({ kind: 'compile', campaign }) as Promise<string | null>;
  }

  /** The campaign's test message for each recipient, compiled once. */
  testMessages(campaign: CampaignContent, recipients: Recipient[]): Promise<TestMessageOrFailure[]> {
    return this.run({ kind: 'test', campaign, recipients }) as Promise<TestMessageOrFailure[]>;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    if (worker) await this.end(worker, new Error('the template thread is stopping'));
  }

  private run(job: TemplateJob): Promise<unknown> {
    const worker = this.worker ?? this.start();
    if (this.idle) clearTimeout(this.idle);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => void this.end(worker, new Error(`the template took longer than ${JOB_LIMIT_MS / 1000} s to process`)), JOB_LIMIT_MS);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, job });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./template-worker.ts', import.meta.url), { workerData: this.data, resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB } });
    // Never what keeps a process from exiting.
    worker.unref();
    worker.on('message', (answer: TemplateAnswer) => {
      const job = this.pending.get(answer.id);
      if (!job) return;
      clearTimeout(job.timer);
      this.pending.delete(answer.id);
      if ('error' in answer) job.reject(new Error(answer.error));
      else job.resolve(answer.result);
      if (!this.pending.size) this.idle = setTimeout(() => void this.end(worker, new Error('idle')), IDLE_MS).unref();
    });
    worker.on('error', (err) => void this.end(worker, err));
    worker.on('exit', () => void this.end(worker, new Error('the template thread stopped')));
    this.worker = worker;
    return worker;
  }

  /** Fails the thread's jobs and ends it; the next job starts another. */
  private async end(worker: Worker, error: Error): Promise<void> {
    if (this.worker !== worker) return;
    this.worker = null;
    if (this.idle) clearTimeout(this.idle);
    for (const job of this.pending.values()) {
      clearTimeout(job.timer);
      job.reject(error);
    }
    this.pending.clear();
    await worker.terminate();
  }
}

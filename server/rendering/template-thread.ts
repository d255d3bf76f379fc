import { Worker } from 'node:worker_threads';
import type { FieldError } from '../contract/problem.ts';
import type { SecretKey } from '../secrets/key-ring.ts';
import type { SenderDomain } from './addressing.ts';
import type { CampaignContent, CampaignPage, Recipient } from './campaign-message.ts';
import type { TemplateFields } from './campaign-template.ts';
import type { RenderedTemplate, TemplateBundle, TemplateFieldError, TemplateSources } from './liquid.ts';
import type { FrozenPartials } from './liquid.ts';

export interface TemplateThreadData {
  publicUrl: string;
  secretKeys: SecretKey[];
}

/** A test send's messages: each built (its envelope and MIME text), or why it could not be. */
export type TestMessageOrFailure = { envelope: { from: string; to: string }; raw: string } | { failed: string };

export type TemplateJob =
  | { kind: 'errors'; fields: TemplateFields }
  | { kind: 'compile'; campaign: CampaignContent }
  | { kind: 'test'; campaign: CampaignContent; recipients: Recipient[]; sender: SenderDomain }
  | { kind: 'web-version'; campaign: CampaignContent; recipient: Recipient }
  | { kind: 'archived'; campaign: CampaignContent; meta: Record<string, unknown> }
  | { kind: 'template-check'; sources: TemplateSources }
  | { kind: 'template-freeze'; bundle: TemplateBundle }
  | { kind: 'template-render'; bundle: TemplateBundle; scope: Record<string, unknown>; cacheKey: string | null };

/** A template job's answer: what it made, or every error with its position. */
export type TemplateOutcome<T> = { ok: T } | { errors: TemplateFieldError[] };

/** A job's answer: its result, or the message of what it threw. */
export type TemplateAnswer = { id: number; result: unknown } | { id: number; error: string };

/** What the thread says once its modules are loaded: jobs are timed from then, not from its start. */
export const THREAD_READY = 'ready';

/** Far longer than any bounded job takes on 1 MB of content (about 2 s on an idle core): past it, the thread is ended. */
const JOB_LIMIT_MS = 30_000;
const IDLE_MS = 60_000;
const THREAD_OLD_GENERATION_MB = 256;

interface Queued {
  job: TemplateJob;
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Template work that grows with the content (parsing Liquid, deriving the text part, rendering
 * and building test messages), done in a thread of its own so that the thread answering requests
 * never waits for it: saving or test-sending 1 MB of hostile content would otherwise hold every
 * request for seconds. Jobs run one at a time, each timed from when it starts, so a job that runs
 * too long or takes the thread down fails alone and the jobs queued behind it (other accounts')
 * run in a new thread. The thread starts on first use and ends after a minute without work.
 */
export class TemplateThread {
  private readonly data: TemplateThreadData;
  private worker: Worker | null = null;
  private readonly queue: Queued[] = [];
  private running: (Queued & { id: number; timer: NodeJS.Timeout | null }) | null = null;
  /** Whether the current thread has loaded its modules (a new thread takes a while, more so on a busy machine). */
  private ready = false;
  private nextId = 0;
  private idle: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly jobLimitMs: number;

  constructor(data: TemplateThreadData, jobLimitMs = JOB_LIMIT_MS) {
    this.data = data;
    this.jobLimitMs = jobLimitMs;
  }

  /** Every template field that does not parse; empty when all do. */
  errors(fields: TemplateFields): Promise<FieldError[]> {
    return this.run({ kind: 'errors', fields }) as Promise<FieldError[]>;
  }

  /** Why the campaign's templates do not compile, or null when they do. */
  compileError(campaign: CampaignContent): Promise<string | null> {
    return this.run({ kind: 'compile', campaign }) as Promise<string | null>;
  }

  /** The campaign's test message for each recipient, compiled once; links and return path under `sender`'s domain. */
  testMessages(campaign: CampaignContent, recipients: Recipient[], sender: SenderDomain): Promise<TestMessageOrFailure[]> {
    return this.run({ kind: 'test', campaign, recipients, sender }) as Promise<TestMessageOrFailure[]>;
  }

  /** A message's web version: its recipient's message as a page. */
  webVersion(campaign: CampaignContent, recipient: Recipient): Promise<CampaignPage> {
    return this.run({ kind: 'web-version', campaign, recipient }) as Promise<CampaignPage>;
  }

  /** A campaign as its public archive shows it, personalised with `meta` alone. */
  archived(campaign: CampaignContent, meta: Record<string, unknown>): Promise<CampaignPage> {
    return this.run({ kind: 'archived', campaign, meta }) as Promise<CampaignPage>;
  }

  /** Whether a template's draft parses, and the partials and layouts it calls. */
  checkTemplate(sources: TemplateSources): Promise<{ errors: TemplateFieldError[]; partialNames: string[] }> {
    return this.run({ kind: 'template-check', sources }) as Promise<{ errors: TemplateFieldError[]; partialNames: string[] }>;
  }

  /** A template's partials as a version keeps them (texts derived), once the whole bundle compiles. */
  freezeTemplate(bundle: TemplateBundle): Promise<TemplateOutcome<FrozenPartials>> {
    return this.run({ kind: 'template-freeze', bundle }) as Promise<TemplateOutcome<FrozenPartials>>;
  }

  /** Renders a template; `cacheKey` (a published version's id) keeps it compiled for the next time. */
  renderTemplate(bundle: TemplateBundle, scope: Record<string, unknown>, cacheKey: string | null): Promise<TemplateOutcome<RenderedTemplate>> {
    return this.run({ kind: 'template-render', bundle, scope, cacheKey }) as Promise<TemplateOutcome<RenderedTemplate>>;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const queued of this.queue.splice(0)) queued.reject(new TemplateThreadStopped());
    this.finish(new TemplateThreadStopped());
    await this.stopWorker();
  }

  private run(job: TemplateJob): Promise<unknown> {
    if (this.closed) return Promise.reject(new TemplateThreadStopped());
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.next();
    });
  }

  /** Sends the next queued job when none is running. */
  private next(): void {
    if (this.running || this.closed) return;
    const queued = this.queue.shift();
    if (!queued) {
      this.idle ??= setTimeout(() => void this.stopWorker(), IDLE_MS).unref();
      return;
    }
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const worker = this.worker ?? this.start();
    this.running = { ...queued, id: this.nextId++, timer: null };
    worker.postMessage({ id: this.running.id, job: queued.job });
    if (this.ready) this.startTimer();
  }

  /** Times the running job: past the limit it fails and the thread is ended. */
  private startTimer(): void {
    if (!this.running || this.running.timer) return;
    this.running.timer = setTimeout(() => {
      this.finish(new Error(`the template took longer than ${this.jobLimitMs / 1000} s to process`));
      void this.stopWorker().then(() => this.next());
    }, this.jobLimitMs);
  }

  /** Ends the running job with `outcome` (an error, or its answer). */
  private finish(outcome: Error | TemplateAnswer): void {
    const running = this.running;
    if (!running) return;
    this.running = null;
    if (running.timer) clearTimeout(running.timer);
    if (outcome instanceof Error) running.reject(outcome);
    else if ('error' in outcome) running.reject(new Error(outcome.error));
    else running.resolve(outcome.result);
  }

  private start(): Worker {
    const worker = new Worker(new URL('./template-worker.ts', import.meta.url), {
      workerData: this.data,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB },
    });
    // Never what keeps a process from exiting.
    worker.unref();
    this.ready = false;
    worker.on('message', (answer: TemplateAnswer | typeof THREAD_READY) => {
      if (answer === THREAD_READY) {
        if (this.worker !== worker) return;
        this.ready = true;
        this.startTimer();
        return;
      }
      if (answer.id !== this.running?.id) return;
      this.finish(answer);
      this.next();
    });
    // Out of memory, or an error it did not catch: the running job fails, the next one gets a new thread.
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = null;
      this.finish(error);
      this.next();
    };
    worker.on('error', lost);
    worker.on('exit', () => lost(new Error('the template thread stopped')));
    this.worker = worker;
    return worker;
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    await worker?.terminate();
  }
}

/** The template thread is stopping with the process: the job was not refused for its content. */
export class TemplateThreadStopped extends Error {
  constructor() {
    super('the template thread is stopping');
  }
}

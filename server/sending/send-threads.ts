import { Worker } from 'node:worker_threads';
import type { Config } from '../config.ts';
import type { SecretKey } from '../secrets/key-ring.ts';
import type { Logger } from '../logger.ts';
import type { CampaignContent, Recipient } from '../rendering/campaign-message.ts';
import type { TransactionalContent, TransactionalMail } from '../rendering/transactional-message.ts';
import type { SendOutcome } from './transport.ts';
import { ConnectionSlots } from './relay-limits.ts';
import { relayPlan, type RelayPlan } from './relays.ts';

/** What names a campaign's compiled content in a thread: each A/B variant is content of its own. */
const contentKey = (campaign: CampaignContent) => (campaign.variant ? `${campaign.id}/${campaign.variant}` : campaign.id);
import type { SendingIdentity } from './identity.ts';

/** Compiled campaigns a thread keeps; one it dropped is asked for again. */
export const CAMPAIGNS_PER_THREAD = 32;

const THREAD_OLD_GENERATION_MB = 256;
const CLOSE_GRACE_MS = 10_000;
/** How long a thread with nothing in flight lives on: a campaign's batches come far closer together. */
export const THREAD_IDLE_MS = 30_000;

/** `halted`: not handed to the relay, because the campaign was paused or cancelled meanwhile. */
export type ThreadOutcome = SendOutcome | { kind: 'render_failed'; reason: string } | { kind: 'halted' };

/** What a thread answers: an outcome per recipient, in order, or that it needs the campaign handed over (again). */
export type ThreadReply = { kind: 'outcomes'; outcomes: ThreadOutcome[] } | { kind: 'campaign_needed' } | { kind: 'lost'; error: string };

export interface SendThreadData {
  /** The relay of `SMTP_URL` (or the capture server); unused under `SMTP_RELAYS`. */
  smtpUrl: string;
  /** Where rate-limited relays claim their sends; absent: no relay is rate-limited. */
  databaseUrl?: string;
  /** The process's relays and routes (`SMTP_URL`'s relay holds the whole `SMTP_POOL_SIZE`). */
  plan: RelayPlan;
  /** Each relay's connections open in the process, shared by its threads. */
  connections: Int32Array;
  sending: Config['sending'];
  publicUrl: string;
  secretKeys: SecretKey[];
}

/**
 * A thread's share of a batch: one message each way for all its recipients (a message each way
 * per recipient cost about a tenth of the sending process's CPU, cloning and waking threads).
 */
export interface SendRequest {
  id: number;
  campaignId: string;
  /** Sent with a thread's first message of a campaign, and when the thread asks for it. */
  campaign?: CampaignContent;
  recipients: Recipient[];
  /** The campaign's From address's identity, looked up per batch: a rotation or a lost verification applies to the next one. */
  identity: SendingIdentity | null;
}

/** Tells a thread to hand none of a request's remaining recipients to the relay. */
export interface HaltRequest {
  halt: number;
}

/** Transactional messages: each with its content, handed over with the request (a content is sent once per share). */
export interface TransactionalRequest {
  id: number;
  kind: 'transactional';
  contents: TransactionalContent[];
  mails: TransactionalMail[];
  /** The identities of the contents' From addresses, each once, and which content is sent as which. */
  identities: SendingIdentity[];
  identityOf: Record<string, number>;
}

interface Thread {
  worker: Worker;
  pending: Map<number, { recipients: number; resolve: (reply: ThreadReply) => void }>;
  /** Recipients handed over and not answered yet. */
  load: number;
  /** Campaigns handed to this thread; it may since have dropped some, and then asks. */
  campaigns: Set<string>;
  /** Set while nothing is in flight: ends the thread when it fires. */
  idle: NodeJS.Timeout | null;
}

/**
 * Rendering and SMTP run in worker threads, so a campaign uses more than the main thread's core:
 * the main thread claims and records batches, the threads render and send. A batch is shared out
 * among the threads, each share to the thread with the fewest recipients in flight. A thread that dies answers its messages with a transport
 * error (they go back to the queue) and is replaced on the next send.
 *
 * Threads start on first use and end after `idleMs` with nothing in flight, so an idle server
 * holds no thread's heap, code or compiled campaigns. A thread is taken out of its slot before
 * it is told to stop, so a send that comes meanwhile goes to a new thread, never to the stopping one.
 */
export class SendThreads {
  private readonly threads: (Thread | null)[];
  private readonly data: SendThreadData;
  private readonly log: Logger;
  private readonly idleMs: number;
  /** Threads ended for idleness and not exited yet: `close` waits for them too. */
  private readonly stopping = new Set<Promise<void>>();
  private nextId = 0;
  private closed = false;

  constructor(data: Omit<SendThreadData, 'plan' | 'connections'>, count: number, log: Logger, idleMs = THREAD_IDLE_MS) {
    // The relay's connections and the process's sending rate are shared out among the threads,
    // never more connections in all than the pool has: no more threads than connections.
    const threads = Math.max(1, Math.min(count, data.sending.poolSize));
    const plan = relayPlan(data.sending, data.smtpUrl);
    this.data = {
      ...data,
      plan,
      connections: ConnectionSlots.shared(plan.relays.length),
      sending: { ...data.sending, ratePerSecond: data.sending.ratePerSecond / threads },
    };
    this.threads = Array.from({ length: threads }, () => null);
    this.log = log;
    this.idleMs = idleMs;
  }

  /** A slot's share of the pool's connections: the remainder goes to the first slots. */
  private dataFor(slot: number): SendThreadData {
    const { poolSize } = this.data.sending;
    const count = this.threads.length;
    return { ...this.data, sending: { ...this.data.sending, poolSize: Math.floor(poolSize / count) + (slot < poolSize % count ? 1 : 0) } };
  }

  /** How many threads are running now (not counting ones ending). */
  get running(): number {
    return this.threads.filter(Boolean).length;
  }

  /**
   * Starts the threads not running yet, and gives idle ones a full idle period again, so that a
   * campaign's first batch does not wait for threads to load.
   */
  warm(): void {
    if (this.closed) return;
    for (let slot = 0; slot < this.threads.length; slot++) {
      const thread = this.threads[slot];
      if (thread) thread.idle?.refresh();
      else this.start(slot);
    }
  }

  /**
   * Renders and sends to every recipient, shared out among the threads; answers their outcomes in
   * order. Once `halt` aborts, the threads hand none of the rest to the relay (`halted`).
   */
  async sendAll(campaign: CampaignContent, recipients: Recipient[], identity: SendingIdentity | null, halt?: AbortSignal): Promise<ThreadOutcome[]> {
    const shares = Math.min(this.threads.length, recipients.length);
    const size = Math.ceil(recipients.length / shares);
    const parts = await Promise.all(
      Array.from({ length: shares }, (_, i) => this.sendShare(campaign, recipients.slice(i * size, (i + 1) * size), identity, halt)),
    );
    return parts.flat();
  }

  private async sendShare(campaign: CampaignContent, recipients: Recipient[], identity: SendingIdentity | null, halt?: AbortSignal): Promise<ThreadOutcome[]> {
    const failed = (error: string) => recipients.map((): ThreadOutcome => ({ kind: 'transport_error', error }));
    if (this.closed) return failed('sending threads are stopping');
    if (halt?.aborted) return recipients.map((): ThreadOutcome => ({ kind: 'halted' }));
    const thread = this.leastBusy();
    // A campaign's content is frozen once it starts sending: its id names one compiled version.
    const handed = thread.campaigns.has(contentKey(campaign));
    let reply = await this.request(thread, campaign, recipients, identity, !handed, halt);
    if (reply.kind === 'campaign_needed') reply = await this.request(thread, campaign, recipients, identity, true, halt);
    // Only possible if the thread dropped the campaign between the two requests: 32 others came.
    if (reply.kind === 'campaign_needed') return failed('the sending thread lost the campaign');
    return reply.kind === 'lost' ? failed(reply.error) : reply.outcomes;
  }

  /**
   * Renders and sends transactional messages, shared out among the threads, each content as its
   * identity in `identities` (none: as the server); answers their outcomes in order.
   */
  async sendTransactional(
    contents: Map<string, TransactionalContent>,
    mails: TransactionalMail[],
    identities: Map<string, SendingIdentity>,
  ): Promise<ThreadOutcome[]> {
    if (!mails.length) return [];
    const shares = Math.min(this.threads.length, mails.length);
    const size = Math.ceil(mails.length / shares);
    const parts = await Promise.all(
      Array.from({ length: shares }, async (_, i): Promise<ThreadOutcome[]> => {
        const share = mails.slice(i * size, (i + 1) * size);
        if (this.closed) return share.map(() => ({ kind: 'transport_error', error: 'sending threads are stopping' }));
        const needed = [...new Set(share.map((m) => m.contentId))].map((id) => contents.get(id)!);
        const request: TransactionalRequest = { id: this.nextId++, kind: 'transactional', contents: needed, mails: share, ...identitiesOf(needed, identities) };
        const thread = this.leastBusy();
        const reply = await new Promise<ThreadReply>((resolve) => this.post(thread, request, share.length, resolve));
        return reply.kind === 'outcomes'
          ? reply.outcomes
          : share.map(() => ({ kind: 'transport_error', error: reply.kind === 'lost' ? reply.error : 'no answer' }));
      }),
    );
    return parts.flat();
  }

  private async request(
    thread: Thread,
    campaign: CampaignContent,
    recipients: Recipient[],
    identity: SendingIdentity | null,
    withCampaign: boolean,
    halt?: AbortSignal,
  ): Promise<ThreadReply> {
    const key = contentKey(campaign);
    const request: SendRequest = { id: this.nextId++, campaignId: key, recipients, identity, ...(withCampaign ? { campaign } : {}) };
    if (withCampaign) thread.campaigns.add(key);
    const onHalt = () => thread.worker.postMessage({ halt: request.id } satisfies HaltRequest);
    halt?.addEventListener('abort', onHalt, { once: true });
    try {
      return await new Promise((resolve) => this.post(thread, request, recipients.length, resolve));
    } finally {
      halt?.removeEventListener('abort', onHalt);
    }
  }

  private post(thread: Thread, request: SendRequest | TransactionalRequest, recipients: number, resolve: (reply: ThreadReply) => void): void {
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = null;
    thread.pending.set(request.id, { recipients, resolve });
    thread.load += recipients;
    thread.worker.postMessage(request);
  }

  async close(): Promise<void> {
    this.closed = true;
    const running = this.threads.splice(0, this.threads.length, ...this.threads.map(() => null));
    await Promise.all([...running.map((thread) => thread && this.stop(thread)), ...this.stopping]);
  }

  /** Tells a thread to finish what it has and end; a thread still busy after the grace period is stopped. */
  private async stop(thread: Thread): Promise<void> {
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = null;
    const exited = new Promise((resolve) => thread.worker.once('exit', resolve));
    thread.worker.postMessage('close');
    // Shutting down must not hang on a thread.
    const timer = setTimeout(() => void thread.worker.terminate(), CLOSE_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Ends the thread after `idleMs` unless work comes first. */
  private idleAfterwards(slot: number, thread: Thread): void {
    if (thread.pending.size || thread.idle || this.closed) return;
    thread.idle = setTimeout(() => {
      thread.idle = null;
      if (this.threads[slot] !== thread || thread.pending.size) return;
      this.threads[slot] = null;
      const stopped = this.stop(thread);
      this.stopping.add(stopped);
      void stopped.finally(() => this.stopping.delete(stopped));
    }, this.idleMs).unref();
  }

  private leastBusy(): Thread {
    let best = 0;
    for (let i = 0; i < this.threads.length; i++) {
      const thread = this.threads[i];
      if (!thread) return this.start(i);
      if (thread.load < this.threads[best]!.load) best = i;
    }
    return this.threads[best]!;
  }

  private start(slot: number): Thread {
    // A thread holds a few compiled campaigns and the messages in flight; without a cap, each
    // thread's heap would grow as lazily as the main thread's.
    const worker = new Worker(new URL('./send-thread.ts', import.meta.url), {
      workerData: this.dataFor(slot),
      resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB },
    });
    const thread: Thread = { worker, pending: new Map(), campaigns: new Set(), load: 0, idle: null };
    worker.on('message', ({ id, reply }: { id: number; reply: ThreadReply }) => {
      const pending = thread.pending.get(id);
      if (!pending) return;
      thread.pending.delete(id);
      thread.load -= pending.recipients;
      this.idleAfterwards(slot, thread);
      pending.resolve(reply);
    });
    const lost = (reason: string) => {
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = null;
      if (this.threads[slot] === thread) this.threads[slot] = null;
      for (const { resolve } of thread.pending.values()) resolve({ kind: 'lost', error: reason });
      thread.pending.clear();
      thread.load = 0;
    };
    worker.on('error', (err: Error) => {
      this.log.error({ err }, 'a sending thread failed');
      lost(`the sending thread failed: ${err.message}`);
    });
    worker.on('exit', () => lost('the sending thread stopped'));
    this.threads[slot] = thread;
    this.idleAfterwards(slot, thread);
    return thread;
  }
}

/** A share's identities, each handed over once however many of its contents are sent as it. */
function identitiesOf(contents: TransactionalContent[], identities: Map<string, SendingIdentity>): Pick<TransactionalRequest, 'identities' | 'identityOf'> {
  const list: SendingIdentity[] = [];
  const identityOf: Record<string, number> = {};
  for (const { id } of contents) {
    const identity = identities.get(id);
    if (!identity) continue;
    if (!list.includes(identity)) list.push(identity);
    identityOf[id] = list.indexOf(identity);
  }
  return { identities: list, identityOf };
}

import { Worker } from 'node:worker_threads';
import type { CampaignRow } from '../campaigns/entities.ts';
import type { Config } from '../config.ts';
import type { SecretKey } from '../secrets/key-ring.ts';
import type { Logger } from '../logger.ts';
import type { Recipient } from './render.ts';
import type { SendOutcome } from './transport.ts';

/** Compiled campaigns a thread keeps; one it dropped is asked for again. */
export const CAMPAIGNS_PER_THREAD = 32;

const THREAD_OLD_GENERATION_MB = 256;
const CLOSE_GRACE_MS = 10_000;

export type ThreadOutcome = SendOutcome | { kind: 'render_failed'; reason: string };

/** What a thread answers: an outcome, or that it needs the campaign handed over (again). */
export type ThreadReply = ThreadOutcome | { kind: 'campaign_needed' };

export interface SendThreadData {
  smtpUrl: string;
  sending: Config['sending'];
  publicUrl: string;
  secretKeys: SecretKey[];
}

export interface SendRequest {
  id: number;
  campaignId: string;
  /** Sent with a thread's first message of a campaign, and when the thread asks for it. */
  campaign?: CampaignRow;
  recipient: Recipient;
}

interface Thread {
  worker: Worker;
  pending: Map<number, (reply: ThreadReply) => void>;
  /** Campaigns handed to this thread; it may since have dropped some, and then asks. */
  campaigns: Set<string>;
}

/**
 * Rendering and SMTP run in worker threads, so a campaign uses more than the main thread's core:
 * the main thread claims and records batches, the threads render and send. Each message goes to
 * the thread with the fewest in flight. A thread that dies answers its messages with a transport
 * error (they go back to the queue) and is replaced on the next send.
 */
export class SendThreads {
  private readonly threads: (Thread | null)[];
  private readonly data: SendThreadData;
  private readonly log: Logger;
  private nextId = 0;
  private closed = false;

  constructor(data: SendThreadData, count: number, log: Logger) {
    // The relay's connections are shared out among the threads.
    this.data = { ...data, sending: { ...data.sending, poolSize: Math.max(1, Math.ceil(data.sending.poolSize / count)) } };
    this.threads = Array.from({ length: count }, () => null);
    this.log = log;
  }

  async send(campaign: CampaignRow, recipient: Recipient): Promise<ThreadOutcome> {
    if (this.closed) return { kind: 'transport_error', error: 'sending threads are stopping' };
    const thread = this.leastBusy();
    // A campaign's content is frozen once it starts sending: its id names one compiled version.
    const handed = thread.campaigns.has(campaign.id);
    let reply = await this.request(thread, campaign, recipient, !handed);
    if (reply.kind === 'campaign_needed') reply = await this.request(thread, campaign, recipient, true);
    // Only possible if the thread dropped the campaign between the two requests: 32 others came.
    if (reply.kind === 'campaign_needed') return { kind: 'transport_error', error: 'the sending thread lost the campaign' };
    return reply;
  }

  private request(thread: Thread, campaign: CampaignRow, recipient: Recipient, withCampaign: boolean): Promise<ThreadReply> {
    const request: SendRequest = { id: this.nextId++, campaignId: campaign.id, recipient, ...(withCampaign ? { campaign } : {}) };
    if (withCampaign) thread.campaigns.add(campaign.id);
    return new Promise((resolve) => {
      thread.pending.set(request.id, resolve);
      thread.worker.postMessage(request);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.threads.map(async (thread) => {
        if (!thread) return;
        const exited = new Promise((resolve) => thread.worker.once('exit', resolve));
        thread.worker.postMessage('close');
        // A thread still busy after this long is stopped: shutting down must not hang on it.
        const timer = setTimeout(() => void thread.worker.terminate(), CLOSE_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private leastBusy(): Thread {
    let best = 0;
    for (let i = 0; i < this.threads.length; i++) {
      const thread = this.threads[i];
      if (!thread) return this.start(i);
      if (thread.pending.size < this.threads[best]!.pending.size) best = i;
    }
    return this.threads[best]!;
  }

  private start(slot: number): Thread {
    // A thread holds a few compiled campaigns and the messages in flight; without a cap, each
    // thread's heap would grow as lazily as the main thread's.
    const worker = new Worker(new URL('./send-thread.ts', import.meta.url), {
      workerData: this.data,
      resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_GENERATION_MB },
    });
    const thread: Thread = { worker, pending: new Map(), campaigns: new Set() };
    worker.on('message', ({ id, reply }: { id: number; reply: ThreadReply }) => {
      thread.pending.get(id)?.(reply);
      thread.pending.delete(id);
    });
    const lost = (reason: string) => {
      if (this.threads[slot] === thread) this.threads[slot] = null;
      for (const resolve of thread.pending.values()) resolve({ kind: 'transport_error', error: reason });
      thread.pending.clear();
    };
    worker.on('error', (err: Error) => {
      this.log.error({ err }, 'a sending thread failed');
      lost(`the sending thread failed: ${err.message}`);
    });
    worker.on('exit', () => lost('the sending thread stopped'));
    this.threads[slot] = thread;
    return thread;
  }
}

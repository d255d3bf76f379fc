import pg from 'pg';
import type { Logger } from '../logger.ts';

const RECONNECT_MS = 1000;

/** Events of one account, announced by the transaction that committed them. */
export interface Announcement {
  accountId: string;
  seqs: string[];
}

/**
 * One LISTEN connection per process on `sendline_events`: every committed batch of events is
 * announced as `account:seq,seq,…` (see the LeanOutbox migration), in any process that wrote it.
 */
export class EventListener {
  private client: pg.Client | null = null;
  private readonly handlers: ((announcement: Announcement) => void)[] = [];
  private closed = false;
  private readonly url: string;
  private readonly log: Logger;

  constructor(url: string, log: Logger) {
    this.url = url;
    this.log = log;
  }

  onEvents(handler: (announcement: Announcement) => void): void {
    this.handlers.push(handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      const separator = payload.indexOf(':');
      if (separator < 0) return;
      const announcement = { accountId: payload.slice(0, separator), seqs: payload.slice(separator + 1).split(',') };
      for (const handler of this.handlers) handler(announcement);
    });
    client.on('error', (err) => {
      if (this.closed) return;
      this.log.warn({ err }, 'event listener connection failed; reconnecting');
      this.client = null;
      client.end().catch(() => {});
      setTimeout(() => void this.start().catch((e) => this.log.warn({ err: e }, 'event listener reconnect failed')), RECONNECT_MS).unref();
    });
    await client.connect();
    await client.query('listen sendline_events');
    this.client = client;
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => {});
  }
}

import pg from 'pg';
import type { Logger } from '../logger.ts';

const RECONNECT_MS = 1000;

/** Events of one account, announced by the transaction that committed them. */
export interface Announcement {
  accountId: string;
  seqs: string[];
}

/**
 * One LISTEN connection per process, on two channels:
 * - `sendline_events`: every committed batch of events someone listens to (an account with
 *   WebSocket clients in some process, or events a webhook waits for), as `account:seq,seq,…`
 *   (events/outbox.ts), in any process that wrote it;
 * - `sendline_revocations`: every credential that ended, as `session:<id>` or `key:<id>`, and
 *   every key whose allow-list changed, as `key-restricted:<id>` (auth/revocations.ts, by the code
 *   that ends or changes them);
 * - `sendline_campaign_halts`: every campaign paused or cancelled, as its id (campaigns/store.ts).
 */
export class EventListener {
  private client: pg.Client | null = null;
  private readonly eventHandlers: ((announcement: Announcement) => void)[] = [];
  private readonly revocationHandlers: ((credential: string) => void)[] = [];
  private readonly haltHandlers: ((campaignId: string) => void)[] = [];
  private readonly connectHandlers: (() => void)[] = [];
  private closed = false;
  private readonly url: string;
  private readonly log: Logger;

  constructor(url: string, log: Logger) {
    this.url = url;
    this.log = log;
  }

  onEvents(handler: (announcement: Announcement) => void): void {
    this.eventHandlers.push(handler);
  }

  onRevoked(handler: (credential: string) => void): void {
    this.revocationHandlers.push(handler);
  }

  onCampaignHalted(handler: (campaignId: string) => void): void {
    this.haltHandlers.push(handler);
  }

  /** Whether announcements are being heard now. */
  get connected(): boolean {
    return this.client !== null;
  }

  /** Called on every (re)connection: what was announced while disconnected is lost. */
  onConnected(handler: () => void): void {
    this.connectHandlers.push(handler);
  }

  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (msg) => {
      const payload = msg.payload ?? '';
      if (msg.channel === 'sendline_revocations') {
        for (const handler of this.revocationHandlers) handler(payload);
        return;
      }
      if (msg.channel === 'sendline_campaign_halts') {
        for (const handler of this.haltHandlers) handler(payload);
        return;
      }
      const separator = payload.indexOf(':');
      if (separator < 0) return;
      const announcement = { accountId: payload.slice(0, separator), seqs: payload.slice(separator + 1).split(',') };
      for (const handler of this.eventHandlers) handler(announcement);
    });
    client.on('error', (err) => {
      // Only a connection in use: a failed connect is start()'s to report.
      if (this.closed || this.client !== client) return;
      this.log.warn({ err }, 'event listener connection failed; reconnecting');
      this.client = null;
      client.end().catch(() => {});
      this.reconnectSoon();
    });
    try {
      await client.connect();
      await client.query('listen sendline_events; listen sendline_revocations; listen sendline_campaign_halts');
    } catch (err) {
      client.end().catch(() => {});
      throw err;
    }
    // Stopped while this connection was being made: it must not outlive the stop.
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    for (const handler of this.connectHandlers) handler();
  }

  /** Tries again every RECONNECT_MS until it is connected or stopped: the database may be down a while. */
  private reconnectSoon(): void {
    setTimeout(() => {
      if (this.closed) return;
      this.start().catch((err) => {
        this.log.warn({ err }, 'event listener reconnect failed; trying again');
        this.reconnectSoon();
      });
    }, RECONNECT_MS).unref();
  }

  async stop(): Promise<void> {
    this.closed = true;
    await this.client?.end().catch(() => {});
  }
}

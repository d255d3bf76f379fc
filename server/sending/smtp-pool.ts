import { parseConnectionUrl } from 'nodemailer/lib/shared';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import type { ConnectionSlots } from './relay-limits.ts';

type SmtpError = Error & { code?: string; responseCode?: number; unsent?: boolean };

/** How long a thread waiting for another thread's connection to the relay looks again at most. */
const SLOT_RECHECK_MS = 250;

/**
 * The relay certainly did not take the message: no connection (refused, unreachable, greeting,
 * EHLO, STARTTLS or AUTH failed), or a 421 reply to one of its commands. nodemailer reports a 421
 * as the session closing, whichever command it answered; only a 2xx to the end of the data is an
 * acceptance (RFC 5321 4.1.1.4), so a 421 even there leaves the message untaken.
 */
export const isUnsent = (error: unknown): boolean => {
  const err = error as SmtpError;
  return err.unsent === true || err.responseCode === 421;
};

/** The relay closed the connection or answered 421: the message can go out on another one. */
const isConnectionLoss = (err: SmtpError) => err.responseCode === 421 || ['ECONNECTION', 'ESOCKET', 'ETIMEDOUT'].includes(err.code ?? '');

/** The relay refused this message (not the connection): the session can be reset and reused. */
const isMessageRefusal = (err: SmtpError) => (err.code === 'EENVELOPE' || err.code === 'EMESSAGE') && err.responseCode !== 421;

/**
 * Up to `size` nodemailer SMTP connections to the relay, each sending one message at a time.
 * nodemailer's own pool runs every message, even a pre-built one, through its Mailer and MIME
 * composer, a pipeline of streams per message: 197 µs of CPU a message, against 54 µs for the
 * connection alone. Messages are built by `buildMime`; this sends them.
 */
export class SmtpPool {
  private readonly options: SMTPConnection.Options;
  private readonly login: SMTPConnection.Credentials | null;
  private readonly size: number;
  private readonly idle: SMTPConnection[] = [];
  /** Connections the relay closed or that failed: never handed out again. */
  private readonly broken = new WeakSet<SMTPConnection>();
  private readonly waiting: (() => void)[] = [];
  private open = 0;
  private closed = false;
  /** The relay's connections across the process's threads; null: `size` alone bounds them. */
  private readonly slots: ConnectionSlots | null;
  private idleWatch: NodeJS.Timeout | null = null;

  constructor(url: string, size: number, slots: ConnectionSlots | null = null) {
    const { auth, ...options } = parseConnectionUrl(url) as SMTPConnection.Options & { auth?: { user?: string; pass?: string } };
    this.options = options;
    this.login = auth?.user || auth?.pass ? { user: auth.user ?? '', pass: auth.pass ?? '' } : null;
    this.size = size;
    this.slots = slots;
  }

  /** Sends one message to one recipient; rejects with nodemailer's error (its `code`, `responseCode`). */
  async send(envelope: { from: string; to: string }, message: string): Promise<SMTPConnection.SentMessageInfo> {
    const { connection, reused } = await this.acquire().catch((err: SmtpError) => {
      throw Object.assign(err, { unsent: true });
    });
    try {
      const info = await this.transmit(connection, envelope, message);
      this.release(connection);
      return info;
    } catch (error) {
      const err = error as SmtpError;
      if (isMessageRefusal(err) && !this.broken.has(connection)) {
        connection.reset((resetError) => (resetError ? this.discard(connection) : this.release(connection)));
        throw err;
      }
      this.discard(connection);
      // A connection that sat idle may have been closed by the relay in the meantime.
      if (reused && isConnectionLoss(err)) return this.send(envelope, message);
      throw err;
    }
  }

  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) {
      connection.quit();
      this.closedOne();
    }
    for (const wake of this.waiting.splice(0)) wake();
  }

  private transmit(connection: SMTPConnection, envelope: { from: string; to: string }, message: string): Promise<SMTPConnection.SentMessageInfo> {
    return new Promise((resolve, reject) => {
      connection.send({ from: envelope.from, to: [envelope.to] }, message, (err, info) => (err ? reject(err) : resolve(info)));
    });
  }

  private async acquire(): Promise<{ connection: SMTPConnection; reused: boolean }> {
    for (;;) {
      if (this.closed) throw Object.assign(new Error('the SMTP pool is closed'), { code: 'ECONNECTION' });
      const connection = this.idle.pop();
      if (connection) {
        if (!this.broken.has(connection)) return { connection, reused: true };
        this.closedOne();
        continue;
      }
      if (this.open < this.size && (!this.slots || this.slots.tryTake())) {
        this.open++;
        try {
          return { connection: await this.connect(), reused: false };
        } catch (err) {
          this.closedOne();
          this.waiting.shift()?.();
          throw err;
        }
      }
      // Below `size` the connection it waits for may close in another thread.
      const slots = this.open < this.size ? this.slots : null;
      let wake!: () => void;
      const local = new Promise<void>((resolve) => this.waiting.push((wake = resolve)));
      await (slots ? Promise.race([local, slots.changed(SLOT_RECHECK_MS)]) : local);
      const index = this.waiting.indexOf(wake);
      if (index >= 0) this.waiting.splice(index, 1);
    }
  }

  private closedOne(): void {
    this.open--;
    this.slots?.give();
  }

  private release(connection: SMTPConnection): void {
    // Nothing here waits for it and another thread does: its slot goes to that thread.
    if (this.closed || (!this.waiting.length && this.slots?.wanted())) return this.discard(connection);
    this.idle.push(connection);
    this.waiting.shift()?.();
    this.watchIdle();
  }

  /**
   * While connections sit idle here, looks every SLOT_RECHECK_MS whether another thread waits for
   * one to the relay, and closes one for it: an idle thread sends nothing that would free it.
   */
  private watchIdle(): void {
    if (!this.slots || this.idleWatch) return;
    const slots = this.slots;
    this.idleWatch = setInterval(() => {
      if (!this.idle.length || this.closed) {
        clearInterval(this.idleWatch!);
        this.idleWatch = null;
        return;
      }
      if (!slots.wanted()) return;
      const connection = this.idle.shift()!;
      this.broken.add(connection);
      connection.quit();
      this.closedOne();
    }, SLOT_RECHECK_MS);
    this.idleWatch.unref();
  }

  private discard(connection: SMTPConnection): void {
    this.broken.add(connection);
    connection.close();
    this.closedOne();
    this.waiting.shift()?.();
  }

  private connect(): Promise<SMTPConnection> {
    return new Promise((resolve, reject) => {
      const connection = new SMTPConnection(this.options);
      let settled = false;
      const fail = (err: Error) => {
        this.broken.add(connection);
        if (settled) return;
        settled = true;
        connection.close();
        reject(err);
      };
      // Errors of a message in flight reach its send callback; these mark the connection broken.
      connection.on('error', fail);
      connection.once('end', () => fail(Object.assign(new Error('the relay closed the connection'), { code: 'ECONNECTION' })));
      connection.connect(() => {
        const ready = () => {
          settled = true;
          resolve(connection);
        };
        if (!this.login || !connection.allowsAuth) return ready();
        connection.login(this.login, (err) => (err ? fail(err) : ready()));
      });
    });
  }
}

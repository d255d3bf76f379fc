import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export interface Received {
  envelopeFrom: string;
  to: string;
  raw: string;
  mail: ParsedMail;
  /** When the message's data ended (ms since epoch). */
  at: number;
}

/**
 * A real SMTP server for tests: keeps what it receives, refuses some recipients (5xx), delays
 * others the first times (4xx), and can be slowed down per message.
 */
export class SmtpSink {
  readonly received: Received[] = [];
  rejectHard = new Set<string>();
  /** Recipients refused for their syntax (501 5.1.3), as relays stricter than Sendline answer. */
  rejectSyntax = new Set<string>();
  /** Recipients answered 421 (the relay closing the session): the message certainly not taken. */
  closeOn = new Set<string>();
  /** Recipient → how many more times to answer 451. */
  deferTimes = new Map<string, number>();
  delayMs = 0;
  /** How long each recipient waits for its answer (a refusal too): holds a copy in `sending`. */
  rcptDelayMs = 0;
  /** Every recipient answered, whatever the answer, in order. */
  readonly rcptAnswered: string[] = [];
  connectionErrors = 0;
  /** Sessions open now, and the most open at once. */
  openConnections = 0;
  peakConnections = 0;
  private server!: SMTPServer;
  url = '';

  /** Listens on `port` (0: any free one; a fixed one to stand in for a relay that comes back). */
  async start(port = 0): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      // Stopping ends the connections a client keeps open after this long, as a relay going away would.
      closeTimeout: 500,
      logger: false,
      onConnect: (_session, callback) => {
        this.peakConnections = Math.max(this.peakConnections, ++this.openConnections);
        callback();
      },
      onClose: () => {
        this.openConnections--;
      },
      onRcptTo: (address, _session, callback) => {
        if (this.rcptDelayMs) setTimeout(() => this.answerRcpt(address.address, callback), this.rcptDelayMs);
        else this.answerRcpt(address.address, callback);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          void (async () => {
            if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
            const at = Date.now();
            const raw = Buffer.concat(chunks).toString('utf8');
            const mail = await simpleParser(raw);
            for (const rcpt of session.envelope.rcptTo) {
              this.received.push({ envelopeFrom: (session.envelope.mailFrom as { address: string }).address, to: rcpt.address, raw, mail, at });
            }
            callback();
          })().catch(callback);
        });
      },
    });
    // A client that dies mid-session (the crash tests kill senders) resets its connection: for
    // a server that is an ordinary event, counted rather than thrown.
    this.server.on('error', () => {
      this.connectionErrors++;
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.url = `smtp://127.0.0.1:${(this.server.server.address() as { port: number }).port}`;
    return this;
  }

  private answerRcpt(address: string, callback: (err?: Error | null) => void): void {
    const to = address.toLowerCase();
    this.rcptAnswered.push(to);
    if (this.rejectHard.has(to)) return callback(Object.assign(new Error('5.1.1 No such user here'), { responseCode: 550 }));
    if (this.rejectSyntax.has(to)) return callback(Object.assign(new Error('5.1.3 Bad recipient address syntax'), { responseCode: 501 }));
    if (this.closeOn.has(to)) return callback(Object.assign(new Error('4.3.2 Service shutting down'), { responseCode: 421 }));
    const left = this.deferTimes.get(to) ?? 0;
    if (left > 0) {
      this.deferTimes.set(to, left - 1);
      return callback(Object.assign(new Error('4.2.1 Mailbox busy, try later'), { responseCode: 451 }));
    }
    callback();
  }

  to(email: string): Received[] {
    return this.received.filter((r) => r.to.toLowerCase() === email.toLowerCase());
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

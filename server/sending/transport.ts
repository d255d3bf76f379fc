import type { Config } from '../config.ts';
import type { ConnectionSlots } from './relay-limits.ts';
import { isUnsent, SmtpPool } from './smtp-pool.ts';

export type SendOutcome = (
  | { kind: 'accepted'; response: string }
  /** 5xx for the recipient: a hard bounce. */
  | { kind: 'rejected'; code: number; response: string }
  /** 5xx for the command's syntax (RFC 5321 500–504, 555; enhanced 5.5.x, 5.1.3, 5.1.7): the message failed, no mailbox said no. */
  | { kind: 'refused'; code: number; response: string }
  /** 4xx: try again later. */
  | { kind: 'deferred'; code: number; response: string }
  /** The relay itself failed (refused connection, authentication, timeout): not the recipient's fault. */
  | { kind: 'transport_error'; error: string }
) & {
  /** The relay that answered, under `SMTP_RELAYS` routing (its name: a metrics label). */
  relay?: string;
};

const SYNTAX_CODES = new Set([500, 501, 502, 503, 504, 555]);
const SYNTAX_STATUS = /^\d{3}[ -]5\.(?:5\.\d{1,3}|1\.[37])\b/;

/** A refusal of how the address or command was written rather than of the mailbox (RFC 5321, RFC 3463). */
function isSyntaxRefusal(code: number, response: string): boolean {
  return SYNTAX_CODES.has(code) || SYNTAX_STATUS.test(response);
}

/** Pooled SMTP connections to the relay; messages come built and signed (`SigningTransport`). */
export class MailTransport {
  private readonly pool: SmtpPool;

  constructor(url: string, sending: Config['sending'], slots: ConnectionSlots | null = null) {
    this.pool = new SmtpPool(url, sending.poolSize, slots);
  }

  async sendMime(envelope: { from: string; to: string }, raw: string): Promise<SendOutcome> {
    return (await this.attempt(envelope, raw)).outcome;
  }

  /** The outcome, and whether the relay certainly did not take the message (another relay may). */
  async attempt(envelope: { from: string; to: string }, raw: string): Promise<{ outcome: SendOutcome; unsent: boolean }> {
    try {
      // One recipient per message: a refused recipient is an error (EENVELOPE with its code), not a partial success.
      const info = await this.pool.send(envelope, raw);
      return { outcome: { kind: 'accepted', response: String(info.response ?? '') }, unsent: false };
    } catch (error) {
      return { outcome: outcomeOf(error), unsent: isUnsent(error) };
    }
  }

  close(): void {
    this.pool.close();
  }
}

/** What nodemailer's error means for the message. */
function outcomeOf(error: unknown): SendOutcome {
  const e = error as { responseCode?: number; response?: string; code?: string; message?: string };
  if (e.responseCode && e.responseCode >= 500 && e.code !== 'EAUTH') {
    const response = e.response ?? e.message ?? '';
    return { kind: isSyntaxRefusal(e.responseCode, response) ? 'refused' : 'rejected', code: e.responseCode, response };
  }
  if (e.responseCode && e.responseCode >= 400 && e.responseCode < 500 && e.code !== 'EAUTH') {
    return { kind: 'deferred', code: e.responseCode, response: e.response ?? e.message ?? '' };
  }
  return { kind: 'transport_error', error: `${e.code ?? 'error'}: ${e.message ?? String(error)}` };
}

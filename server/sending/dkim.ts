import { createPrivateKey } from 'node:crypto';
import { text } from 'node:stream/consumers';
import DKIM from 'nodemailer/lib/dkim';
import type { Config } from '../config.ts';
import type { SendingIdentity } from './identity.ts';
import type { MailTransport, SendOutcome } from './transport.ts';

/** nodemailer's default list leaves List-Unsubscribe-Post out; RFC 8058 wants it signed. */
const SIGNED_HEADERS =
  'from:sender:reply-to:subject:date:message-id:to:cc:mime-version:content-type:content-transfer-encoding:list-unsubscribe:list-unsubscribe-post';
/** Signers kept per thread: one per domain and selector in use, the oldest dropped past this. */
const CACHED_SIGNERS = 256;

/** A DKIM key: the domain (`d=`), its selector and the PKCS #8 PEM of its private key. */
export type DkimKey = Pick<SendingIdentity, 'domain' | 'dkim'>;

/**
 * DKIM-signs messages: with the key of their sending identity, or the server's
 * (`DKIM_DOMAIN`, `DKIM_SELECTOR`, `DKIM_PRIVATE_KEY`) for mail with none; unsigned when neither.
 * A signer (its key parsed once) is kept per domain and selector.
 */
export class DkimSigners {
  private readonly fallback: DKIM | null;
  private readonly cache = new Map<string, { pem: string; signer: DKIM }>();

  constructor(server: Config['sending']['dkim']) {
    this.fallback = server && signerOf({ domain: server.domain, dkim: { selector: server.selector, privateKey: server.privateKey } });
  }

  async sign(raw: string, key: DkimKey | null): Promise<string> {
    const signer = key ? this.signerFor(key) : this.fallback;
    if (!signer) return raw;
    return text(signer.sign(raw));
  }

  private signerFor(key: DkimKey): DKIM {
    const name = `${key.domain} ${key.dkim.selector}`;
    const cached = this.cache.get(name);
    // A domain deleted and added again the same day has the same selector and a new key.
    if (cached?.pem === key.dkim.privateKey) return cached.signer;
    this.cache.delete(name);
    if (this.cache.size >= CACHED_SIGNERS) this.cache.delete(this.cache.keys().next().value!);
    const signer = signerOf(key);
    this.cache.set(name, { pem: key.dkim.privateKey, signer });
    return signer;
  }
}

function signerOf(key: DkimKey): DKIM {
  return new DKIM({
    domainName: key.domain,
    keySelector: key.dkim.selector,
    privateKey: createPrivateKey(key.dkim.privateKey),
    headerFieldNames: SIGNED_HEADERS,
  });
}

/** The relay, with each message DKIM-signed on its way: by its sending identity's key, else the server's. */
export class SigningTransport {
  private readonly transport: MailTransport;
  private readonly signers: DkimSigners;

  constructor(transport: MailTransport, signers: DkimSigners) {
    this.transport = transport;
    this.signers = signers;
  }

  async sendMime(envelope: { from: string; to: string }, raw: string, identity: DkimKey | null): Promise<SendOutcome> {
    return this.transport.sendMime(envelope, await this.signers.sign(raw, identity));
  }

  close(): void {
    this.transport.close();
  }
}

import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';

/**
 * Signed tokens for the public links in emails. The payload is readable (message id, link
 * index, URL) but any change breaks the signature, so a token reaches only what it was made for:
 * no open redirect, no stepping to another message or account.
 */
export type TrackingToken =
  | { kind: 'open'; messageId: string }
  | { kind: 'click'; messageId: string; link: number; url: string }
  | { kind: 'unsubscribe'; messageId: string };

const KINDS = { open: 'o', click: 'c', unsubscribe: 'u' } as const;

export class TokenSigner {
  /** A KeyObject made once: with a Buffer, every MAC would import the key again (several times the cost). */
  private readonly key: KeyObject;

  /** The key is derived from the JWT secret, which every process of one deployment shares. */
  constructor(jwtSecret: string) {
    this.key = createSecretKey(createHmac('sha256', jwtSecret).update('sendline tracking tokens v1').digest());
  }

  /** HMAC-SHA256 (OpenSSL's, through node:crypto) truncated to 128 bits. */
  private mac(payload: string): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, 16);
  }

  sign(token: TrackingToken): string {
    const parts = token.kind === 'click' ? [KINDS.click, token.messageId, String(token.link), token.url] : [KINDS[token.kind], token.messageId];
    const payload = Buffer.from(JSON.stringify(parts)).toString('base64url');
    return `${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The token's content, or null when it was not signed by this deployment or is malformed. */
  verify(text: string): TrackingToken | null {
    const [payload, signature, ...rest] = text.split('.');
    if (!payload || !signature || rest.length) return null;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(payload);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    try {
      const parts = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      if (!Array.isArray(parts) || typeof parts[1] !== 'string') return null;
      if (parts[0] === KINDS.open) return { kind: 'open', messageId: parts[1] };
      if (parts[0] === KINDS.unsubscribe) return { kind: 'unsubscribe', messageId: parts[1] };
      if (parts[0] === KINDS.click && typeof parts[3] === 'string') return { kind: 'click', messageId: parts[1], link: Number(parts[2]), url: parts[3] };
      return null;
    } catch {
      return null;
    }
  }
}

import { createHmac, type KeyObject } from 'node:crypto';
import { macMatches } from '../secrets/mac.ts';
import { DerivedKeys, LEGACY_KEY_ID, type SecretKey } from '../secrets/key-ring.ts';

/**
 * Signed tokens for the public links in emails. The payload is readable (message id, link
 * index, URL) but any change breaks the signature, so a token reaches only what it was made for:
 * no open redirect, no stepping to another message or account.
 */
export type TrackingToken =
  | { kind: 'open'; messageId: string }
  | { kind: 'click'; messageId: string; link: number; url: string }
  | { kind: 'unsubscribe'; messageId: string }
  | { kind: 'view'; messageId: string };

const KINDS = { open: 'o', click: 'c', unsubscribe: 'u', view: 'v' } as const;

export class TokenSigner {
  /** KeyObjects made once: with a Buffer, every MAC would import the key again (several times the cost). */
  private readonly keys: DerivedKeys;

  /** Keyed by the ring every process of one deployment shares (`SECRET_KEYS`). */
  constructor(ring: readonly SecretKey[]) {
    this.keys = new DerivedKeys(ring, 'sendline tracking tokens v2', (jwtSecret) =>
      createHmac('sha256', jwtSecret).update('sendline tracking tokens v1').digest(),
    );
  }

  /** HMAC-SHA256 (OpenSSL's, through node:crypto) truncated to 128 bits. */
  private mac(key: KeyObject, signed: string): Buffer {
    return createHmac('sha256', key).update(signed).digest().subarray(0, 16);
  }

  /**
   * `{key id}.{payload}.{MAC of both}`; under the legacy key, `{payload}.{MAC}` as releases
   * before key rings wrote them.
   */
  sign(token: TrackingToken): string {
    const parts = token.kind === 'click' ? [KINDS.click, token.messageId, String(token.link), token.url] : [KINDS[token.kind], token.messageId];
    const payload = Buffer.from(JSON.stringify(parts)).toString('base64url');
    const id = this.keys.currentId;
    const signed = id === LEGACY_KEY_ID ? payload : `${id}.${payload}`;
    return `${signed}.${this.mac(this.keys.current, signed).toString('base64url')}`;
  }

  /** Which key signed a token, and what it covers; null when the token has neither shape. */
  private static split(text: string): { id: string; payload: string; signed: string; signature: string } | null {
    const parts = text.split('.');
    if (parts.length === 2 && parts[0] && parts[1]) return { id: LEGACY_KEY_ID, payload: parts[0], signed: parts[0], signature: parts[1] };
    // An id is never `legacy` here: that key's tokens carry none.
    if (parts.length === 3 && parts[0] && parts[0] !== LEGACY_KEY_ID && parts[1] && parts[2]) {
      return { id: parts[0], payload: parts[1], signed: `${parts[0]}.${parts[1]}`, signature: parts[2] };
    }
    return null;
  }

  /** The token's content, or null when no key of the ring signed it (a removed key's tokens too) or it is malformed. */
  verify(text: string): TrackingToken | null {
    const token = TokenSigner.split(text);
    const key = token && this.keys.get(token.id);
    if (!token || !key) return null;
    const { payload, signed, signature } = token;
    if (!macMatches(signature, this.mac(key, signed))) return null;
    try {
      const parts = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      if (!Array.isArray(parts) || typeof parts[1] !== 'string') return null;
      if (parts[0] === KINDS.open) return { kind: 'open', messageId: parts[1] };
      if (parts[0] === KINDS.unsubscribe) return { kind: 'unsubscribe', messageId: parts[1] };
      if (parts[0] === KINDS.view) return { kind: 'view', messageId: parts[1] };
      if (parts[0] === KINDS.click && typeof parts[3] === 'string') return { kind: 'click', messageId: parts[1], link: Number(parts[2]), url: parts[3] };
      return null;
    } catch {
      return null;
    }
  }
}

import { createHmac, type KeyObject } from 'node:crypto';
import { macMatches } from '../secrets/mac.ts';
import { DerivedKeys, type SecretKey } from '../secrets/key-ring.ts';

/** What a double opt-in link confirms: one contact's membership of one list. */
export interface Confirmation {
  listId: string;
  contactId: string;
}

/**
 * Signed double opt-in links, made as the tracking tokens are (HMAC-SHA256 under a key of the
 * `SECRET_KEYS` ring, derived for this use alone, carrying the key's id): the payload is readable
 * but any change breaks the signature, so a link confirms only the membership it was mailed for.
 */
export class ConfirmationSigner {
  private readonly keys: DerivedKeys;

  constructor(ring: readonly SecretKey[]) {
    this.keys = new DerivedKeys(ring, 'sendline list confirmations v1', (jwtSecret) =>
      createHmac('sha256', jwtSecret).update('sendline list confirmations v1').digest(),
    );
  }

  private mac(key: KeyObject, signed: string): Buffer {
    return createHmac('sha256', key).update(signed).digest().subarray(0, 16);
  }

  /** `{key id}.{payload}.{MAC of both}` (the id is `legacy` too when that key is first: these links are newer than key rings). */
  sign(confirmation: Confirmation): string {
    const payload = Buffer.from(JSON.stringify(['l', confirmation.listId, confirmation.contactId])).toString('base64url');
    const signed = `${this.keys.currentId}.${payload}`;
    return `${signed}.${this.mac(this.keys.current, signed).toString('base64url')}`;
  }

  /** The membership a link confirms, or null when no key of the ring signed it or it is malformed. */
  verify(text: string): Confirmation | null {
    const parts = text.split('.');
    if (parts.length !== 3 || !parts[0] || !parts[1] || !parts[2]) return null;
    const key = this.keys.get(parts[0]);
    if (!key) return null;
    if (!macMatches(parts[2], this.mac(key, `${parts[0]}.${parts[1]}`))) return null;
    try {
      const payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as unknown;
      if (!Array.isArray(payload) || payload[0] !== 'l' || typeof payload[1] !== 'string' || typeof payload[2] !== 'string') return null;
      return { listId: payload[1], contactId: payload[2] };
    } catch {
      return null;
    }
  }
}

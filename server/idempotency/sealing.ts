import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { DerivedKeys, type SecretKey } from '../secrets/key-ring.ts';

const LABEL = 'sendline idempotent answers v1';

/** Where a stored answer belongs: sealed with it as associated data, so no row's answer opens as another's. */
export interface AnswerOwner {
  accountId: string;
  credential: string;
  key: string;
}

export interface SealedAnswer {
  keyId: string;
  /** iv (12 bytes), tag (16), ciphertext. */
  sealed: Uint8Array;
}

const aad = (keyId: string, owner: AnswerOwner) => Buffer.from([keyId, owner.accountId, owner.credential, owner.key].join('\0'));

/**
 * Stored answers can carry secrets shown once (a new API key, a webhook's signing secret), so
 * they are sealed with AES-256-GCM under the key ring (`SECRET_KEYS`), with a key of their own.
 */
export class AnswerBox {
  private readonly keys: DerivedKeys;

  constructor(ring: readonly SecretKey[]) {
    // The legacy entry (the JWT secret) has no derivation of its own from earlier releases: HKDF too.
    this.keys = new DerivedKeys(ring, LABEL, (jwtSecret) => Buffer.from(hkdfSync('sha256', jwtSecret, Buffer.alloc(0), LABEL, 32)));
  }

  seal(plain: Buffer, owner: AnswerOwner): SealedAnswer {
    const keyId = this.keys.currentId;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.current, iv);
    cipher.setAAD(aad(keyId, owner));
    const data = Buffer.concat([cipher.update(plain), cipher.final()]);
    return { keyId, sealed: Buffer.concat([iv, cipher.getAuthTag(), data]) };
  }

  /** The plain answer, or null when its key has left the ring or the value does not open. */
  open({ keyId, sealed }: SealedAnswer, owner: AnswerOwner): Buffer | null {
    const key = this.keys.get(keyId);
    if (!key || sealed.length < 28) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
      decipher.setAAD(aad(keyId, owner));
      decipher.setAuthTag(sealed.subarray(12, 28));
      return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
    } catch {
      return null;
    }
  }
}

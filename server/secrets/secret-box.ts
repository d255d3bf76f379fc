import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DerivedKeys, LEGACY_KEY_ID, type SecretKey } from './key-ring.ts';

/**
 * Secrets the server must be able to use (to sign with), so they cannot be hashed: they are
 * stored sealed with AES-256-GCM under a key of the ring (`SECRET_KEYS`), whose id the sealed
 * value carries (and authenticates), so values sealed before a rotation open for as long as
 * their key stays in the ring. A database dump alone does not reveal them. Each use has its own
 * label, so no two uses share a key.
 */
export class SecretBox {
  private readonly keys: DerivedKeys;
  private readonly what: string;

  /** `what` names the secrets in errors (`a webhook secret`); `label` keys the use. */
  constructor(ring: readonly SecretKey[], use: { what: string; label: string; legacyLabel: string }) {
    this.what = use.what;
    this.keys = new DerivedKeys(ring, use.label, (jwtSecret) => createHash('sha256').update(`${use.legacyLabel}\0${jwtSecret}`).digest());
  }

  /** `{key id}.{iv}.{tag}.{ciphertext}`; under the legacy key, `{iv}.{tag}.{ciphertext}` as before key rings. */
  seal(secret: string): string {
    const id = this.keys.currentId;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.current, iv);
    if (id !== LEGACY_KEY_ID) cipher.setAAD(Buffer.from(id));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url'));
    return (id === LEGACY_KEY_ID ? parts : [id, ...parts]).join('.');
  }

  /** Whether a sealed value is under the ring's first key, as `seal` makes them. */
  sealedUnderCurrentKey(sealed: string): boolean {
    const parts = sealed.split('.');
    return (parts.length === 4 ? parts[0] : LEGACY_KEY_ID) === this.keys.currentId;
  }

  open(sealed: string): string {
    const parts = sealed.split('.');
    const id = parts.length === 4 ? parts.shift()! : LEGACY_KEY_ID;
    const key = this.keys.get(id);
    if (!key) throw new Error(`${this.what} is sealed under key "${id}", which SECRET_KEYS no longer holds`);
    const [iv, tag, data] = parts.map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    if (id !== LEGACY_KEY_ID) decipher.setAAD(Buffer.from(id));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
  }
}

import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';

/**
 * One entry of `SECRET_KEYS`: an id carried by every token and sealed value made with it, and
 * the key in base64. Plain strings, so the ring crosses into worker threads as it is.
 */
export interface SecretKey {
  id: string;
  /** Base64 of the key; for `legacy`, base64 of the JWT secret that keyed everything before key rings. */
  key: string;
}

/**
 * The id of the key that releases before key rings derived from JWT_SECRET. Values made under it
 * carry no id (their format predates ids), and its material is the old JWT secret's text, which
 * each use derives its key from as those releases did.
 */
export const LEGACY_KEY_ID = 'legacy';

/**
 * A use's keys, derived once per ring entry: the first signs or seals, every one verifies or
 * opens. Ring keys go through HKDF-SHA256 with the use's label, so tracking tokens and sealed
 * webhook secrets never share a key; the legacy entry goes through the use's old derivation.
 */
export class DerivedKeys {
  readonly currentId: string;
  private readonly keys = new Map<string, KeyObject>();

  constructor(ring: readonly SecretKey[], label: string, legacy: (jwtSecret: string) => Buffer) {
    if (!ring.length) throw new Error('a key ring needs at least one key');
    this.currentId = ring[0].id;
    for (const { id, key } of ring) {
      const material = Buffer.from(key, 'base64');
      const derived = id === LEGACY_KEY_ID ? legacy(material.toString('utf8')) : Buffer.from(hkdfSync('sha256', material, Buffer.alloc(0), label, 32));
      this.keys.set(id, createSecretKey(derived));
    }
  }

  get current(): KeyObject {
    return this.keys.get(this.currentId)!;
  }

  /** The key of this id, or undefined when the ring no longer (or never) held it. */
  get(id: string): KeyObject | undefined {
    return this.keys.get(id);
  }
}

/** The legacy entry for a JWT secret: what releases before key rings keyed everything from. */
export const legacyKey = (jwtSecret: string): SecretKey => ({ id: LEGACY_KEY_ID, key: Buffer.from(jwtSecret).toString('base64') });

import { createHmac, timingSafeEqual } from 'node:crypto';
import { DerivedKeys, type SecretKey } from '../secrets/key-ring.ts';

const LABEL = 'sendline return path v1';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** A message id's part after its prefix: 22 base62 characters (db/ids.ts). */
const ID_CHARS = 22;
/** 62^22 written in base 36 takes 26 characters. */
const ID_BASE36 = 26;
/** 80 bits of HMAC-SHA256 in base 36. */
const MAC_BYTES = 10;
const MAC_BASE36 = 16;
const MESSAGE_ID = new RegExp(`^([a-z]+)_([0-9A-Za-z]{${ID_CHARS}})$`);
const LOCAL_PART = new RegExp(`^b-([a-z]+)-([0-9a-z]{${ID_BASE36}})-([0-9a-z]{${MAC_BASE36}})$`);

const base36 = (n: bigint, width: number) => n.toString(36).padStart(width, '0');

function fromBase62(text: string): bigint {
  let n = 0n;
  for (const c of text) n = n * 62n + BigInt(BASE62.indexOf(c));
  return n;
}

function fromBase36(text: string): bigint {
  let n = 0n;
  for (const c of text) n = n * 36n + BigInt(parseInt(c, 36));
  return n;
}

function toBase62(n: bigint, width: number): string | null {
  let out = '';
  for (let rest = n; rest > 0n; rest /= 62n) out = BASE62[Number(rest % 62n)] + out;
  return out.length > width ? null : out.padStart(width, '0');
}

/**
 * VERP return paths, `b-<token>@bounces.<domain>`: the token names the message and is signed, so
 * a bounce maps to its message from its envelope alone, and a made-up or altered address maps to
 * none. Lowercase letters, digits and hyphens only: mail systems may change the case of a local
 * part, so the base62 id is written in base 36. The local part stays within 64 characters.
 */
export class VerpTokens {
  private readonly keys: DerivedKeys;
  /** Every key of the ring verifies: a bounce may come days after its message, across a rotation. */
  private readonly ids: string[];

  constructor(ring: readonly SecretKey[]) {
    this.keys = new DerivedKeys(ring, LABEL, (jwtSecret) => createHmac('sha256', jwtSecret).update(LABEL).digest());
    this.ids = ring.map((k) => k.id);
  }

  private mac(keyId: string, messageId: string): string {
    const digest = createHmac('sha256', this.keys.get(keyId)!).update(messageId).digest();
    return base36(BigInt(`0x${digest.subarray(0, MAC_BYTES).toString('hex')}`), MAC_BASE36);
  }

  /** The return path of a message sent from a domain whose bounces come to `returnPathDomain`. */
  address(messageId: string, returnPathDomain: string): string {
    const match = MESSAGE_ID.exec(messageId);
    if (!match) throw new Error(`not a message id: ${messageId}`);
    const [, prefix, id] = match;
    return `b-${prefix}-${base36(fromBase62(id), ID_BASE36)}-${this.mac(this.keys.currentId, messageId)}@${returnPathDomain}`;
  }

  /** The message a return path names; null when it is no VERP address or no key of the ring signed it. */
  messageOf(address: string): string | null {
    const at = address.lastIndexOf('@');
    const match = at > 0 ? LOCAL_PART.exec(address.slice(0, at).toLowerCase()) : null;
    if (!match) return null;
    const [, prefix, id36, mac] = match;
    const id = toBase62(fromBase36(id36), ID_CHARS);
    if (id === null) return null;
    const messageId = `${prefix}_${id}`;
    const given = Buffer.from(mac);
    return this.ids.some((keyId) => timingSafeEqual(given, Buffer.from(this.mac(keyId, messageId)))) ? messageId : null;
  }
}

import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** Random base62 text; 22 characters carry about 131 bits. */
export function randomToken(length = 22): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; i < bytes.length && out.length < length; i++) {
    // Rejection sampling keeps every character equally likely.
    if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  }
  return out.length === length ? out : out + randomToken(length - out.length);
}

export type IdPrefix = 'acc' | 'usr' | 'ses' | 'key' | 'evt' | 'ct' | 'cmp' | 'msg' | 'imp' | 'wh' | 'whd' | 'cnv' | 'pay';

/** An opaque id with its type prefix, e.g. `cmp_3kT9…`. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomToken()}`;
}

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

/** Milliseconds since the epoch in 8 base62 characters, so ids sort (roughly) by creation. */
function timePart(): string {
  let n = Date.now();
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * An opaque id with its type prefix, e.g. `cmp_0dXk3Qa1…`: 8 characters of time, then 14
 * random (83 bits). Time first keeps index inserts at the right edge of the B-tree, which
 * matters when a million contacts arrive at once.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${timePart()}${randomToken(14)}`;
}

import { randomFillSync } from 'node:crypto';

// In code point order, so that ids compare as their time parts do (as text, and in PostgreSQL).
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes drawn from a pool refilled 16 KB at a time: an import or a tracking flush makes
 * thousands of ids, and one system call per id cost 5% of an import's CPU. Each byte is used once.
 */
const pool = Buffer.alloc(16 * 1024);
let poolOffset = pool.length;

function randomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++];
}

/** Random base62 text; 22 characters carry about 131 bits. */
export function randomToken(length = 22): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // Rejection sampling keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'acc'
  | 'usr'
  | 'ses'
  | 'key'
  | 'evt'
  | 'ct'
  | 'cmp'
  | 'msg'
  | 'dom'
  | 'imp'
  | 'wh'
  | 'whd'
  | 'cnv'
  | 'pay'
  | 'opn'
  | 'clk'
  | 'bnc'
  | 'uns'
  | 'tmsg'
  | 'fld'
  | 'seg'
  | 'tpl'
  | 'tpv'
  | 'lst'
  | 'em'
  | 'emc'
  | 'aut'
  | 'enr'
  | 'sig'
  | 'whm';

let lastMs = -1;
let lastTimePart = '';

/** Milliseconds since the epoch in 8 base62 characters, so ids sort (roughly) by creation. */
function timePart(): string {
  const now = Date.now();
  // A batch makes thousands of ids within one millisecond.
  if (now === lastMs) return lastTimePart;
  let n = now;
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  lastMs = now;
  lastTimePart = out;
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

import { hash } from 'node:crypto';

/** SHA-256's round constants (FIPS 180-4, 4.2.2). */
const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL_STATE = Int32Array.from([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
const BLOCK = 64;

const schedule = new Int32Array(64);

/** SHA-256's compression function: folds the 64-byte block at `offset` into `state`. */
function compress(state: Int32Array, bytes: Uint8Array, offset: number): void {
  const w = schedule;
  for (let i = 0; i < 16; i++) {
    const j = offset + i * 4;
    w[i] = (bytes[j] << 24) | (bytes[j + 1] << 16) | (bytes[j + 2] << 8) | bytes[j + 3];
  }
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15];
    const b = w[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0];
  let b = state[1];
  let c = state[2];
  let d = state[3];
  let e = state[4];
  let f = state[5];
  let g = state[6];
  let h = state[7];
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
  state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0;
  state[7] = (state[7] + h) | 0;
}

/** The state after one block of the key, XORed with `pad` (RFC 2104's ipad or opad). */
function padState(key: Buffer, pad: number): Int32Array {
  const block = Buffer.alloc(BLOCK, pad);
  for (let i = 0; i < key.length; i++) block[i] ^= key[i];
  const state = Int32Array.from(INITIAL_STATE);
  compress(state, block, 0);
  return state;
}

/** The state as digest bytes: big-endian words. */
function writeState(state: Int32Array, out: Uint8Array): void {
  for (let i = 0; i < 8; i++) {
    out[i * 4] = state[i] >>> 24;
    out[i * 4 + 1] = state[i] >>> 16;
    out[i * 4 + 2] = state[i] >>> 8;
    out[i * 4 + 3] = state[i];
  }
}

/**
 * HMAC-SHA256 (RFC 2104, FIPS 180-4) with the key's two padded blocks folded in once. The
 * tracking pixel checks a token per open, and each node:crypto call costs about 1.3 µs whatever
 * the input's length (two per MAC); in JavaScript, a short message costs two compressions.
 * hmac.test.ts holds it to RFC 4231's vectors and to node:crypto on random inputs.
 */
export class HmacSha256 {
  private readonly inner: Int32Array;
  private readonly outer: Int32Array;
  private readonly state = new Int32Array(8);
  private buffer = Buffer.alloc(256);

  constructor(key: Buffer) {
    const fitted = key.length > BLOCK ? hash('sha256', key, 'buffer') : key;
    this.inner = padState(fitted, 0x36);
    this.outer = padState(fitted, 0x5c);
  }

  /** The 32-byte MAC of `message` (a string is taken as UTF-8). */
  digest(message: string | Uint8Array): Buffer {
    const length = typeof message === 'string' ? Buffer.byteLength(message) : message.length;
    if (this.buffer.length < length + 2 * BLOCK) this.buffer = Buffer.alloc(length + 2 * BLOCK);
    if (typeof message === 'string') this.buffer.write(message);
    else this.buffer.set(message);
    this.hashAfter(this.inner, length);
    // The outer hash's message is the inner digest.
    writeState(this.state, this.buffer);
    this.hashAfter(this.outer, 32);
    const mac = Buffer.allocUnsafe(32);
    writeState(this.state, mac);
    return mac;
  }

  /** Into `state`: the hash of a key block (its state `start`) and the buffer's first `length` bytes. */
  private hashAfter(start: Int32Array, length: number): void {
    // The message, 0x80, zeros, and the bit length of key block and message, in whole blocks.
    const padded = Math.ceil((length + 9) / BLOCK) * BLOCK;
    const buffer = this.buffer;
    buffer[length] = 0x80;
    buffer.fill(0, length + 1, padded - 8);
    const bits = (BLOCK + length) * 8;
    buffer.writeUInt32BE(Math.floor(bits / 2 ** 32), padded - 8);
    buffer.writeUInt32BE(bits >>> 0, padded - 4);
    this.state.set(start);
    for (let offset = 0; offset < padded; offset += BLOCK) compress(this.state, buffer, offset);
  }
}

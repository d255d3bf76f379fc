import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, pipeline } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import type { Principal } from '../principal.ts';
import type { Logger } from '../logger.ts';
import { Problem } from '../contract/problem.ts';
import { standInForBody } from './streamed-body.ts';
import { EMPTY_BODY, fingerprint, watchBody } from './idempotency-fingerprint.ts';

export const MAX_KEY_LENGTH = 255;
/** Printable ASCII, no space at either end (HTTP would drop it). */
const KEY_FORM = /^[!-~]([ -~]*[!-~])?$/;
/** Answers above this are not stored (the key is freed; a retry runs again). */
export const MAX_STORED_ANSWER_BYTES = 8 * 1024 * 1024;
/** The headers an answer is replayed with (rate-limit headers are the replaying request's own). */
const STORED_HEADERS = ['content-type', 'location'];
/** How long the answer of an upload waits for its fingerprint after the body has arrived. */
const BODY_HASH_WAIT_MS = 5000;

/**
 * Answers about the caller or the moment, not about the request, are not stored: a retry with
 * the key runs again. Server errors (the request may be fine), 401, 403, 408 and 429.
 */
const isStored = (status: number) => status < 500 && ![401, 403, 408, 429].includes(status);

interface Keyed {
  key: string;
  /** SHA-256 of the JSON body as it was sent, from the body parser. */
  bodyHash?: Buffer;
}

const keyed = new WeakMap<IncomingMessage, Keyed>();

/** Checks the header's form on every POST and remembers the key; without the header, nothing happens. */
export function checkIdempotencyKey(req: Request, _res: Response, next: NextFunction): void {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return next();
  const key = Array.isArray(header) ? header.join(', ') : header;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY_FORM.test(key)) {
    const detail = `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`;
    throw new Problem(400, 'invalid_idempotency_key', `The Idempotency-Key header ${detail}.`, {
      errors: [{ pointer: 'headers.idempotency-key', detail }],
    });
  }
  keyed.set(req, { key });
  next();
}

/** The JSON body parser's `verify`: hashes the raw body of a request that has a key. */
export function hashJsonBody(req: IncomingMessage, _res: unknown, raw: Buffer): void {
  const k = keyed.get(req);
  if (k) k.bodyHash = createHash('sha256').update(raw).digest();
}

const inUse = () => new Problem(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has answered.');

const reused = (was: { method: string; path: string }) =>
  new Problem(
    422,
    'idempotency_key_reused',
    `This Idempotency-Key was used in the last 24 hours for another request (${was.method} ${was.path}, or another query or body); use a new key.`,
  );

/** A request holding an Idempotency-Key, or asking for it: keys are the caller's own. */
export interface KeyReservation {
  accountId: string;
  /** `key:<id>` or `user:<id>`. */
  credential: string;
  key: string;
  /** This request's own mark: only the holder answers or frees the key. */
  holder: string;
  method: string;
  path: string;
}

/** What a key already holds: a request still running, or a stored answer. */
export type KeyHeld =
  | { state: 'running' }
  | { state: 'none' }
  | {
      state: 'answered';
      method: string;
      path: string;
      requestHash: Uint8Array;
      status: number;
      /** The stored answer, its headers' line first; throws when it can no longer be read. */
      open(): Buffer;
    };

/** Where keys and their answers are kept: declared here, implemented by idempotency/ (which owns the table) and handed in. */
export interface IdempotencyKeys {
  /** Whether this request holds the key now: of concurrent duplicates, on any process, exactly one does. */
  reserve(r: KeyReservation): Promise<boolean>;
  existing(r: KeyReservation): Promise<KeyHeld>;
  /** Stores the answer of the request holding the key. */
  answer(r: KeyReservation, requestHash: Buffer, status: number, plain: Buffer): Promise<void>;
  /** Frees the key (an answer that is not stored): the next request with it runs. */
  release(r: KeyReservation): Promise<void>;
}

export interface IdempotencyOptions {
  keys: IdempotencyKeys;
  log: Logger;
  /** The largest streamed body read to compare it with a stored request's. */
  maxStreamedBytes: number;
}

/**
 * `Idempotency-Key` on an authenticated POST, right before its handler (after authentication,
 * rate limits and validation, whose refusals are not stored): reserves the key for this
 * request, or replays the answer stored for the same request, or refuses. A reserved request's
 * answer is stored before it is sent.
 */
export function idempotent(options: IdempotencyOptions, takesBody: boolean) {
  const { keys, log } = options;
  // Without a key, nothing more than this look-up (not even a promise).
  return (req: Request, res: Response, next: NextFunction): Promise<void> | void => {
    const k = keyed.get(req);
    const principal = (res.locals as { principal?: Principal | null }).principal;
    if (!k || !principal) return next();
    return once(req, res, next, k, principal);
  };

  async function once(req: Request, res: Response, next: NextFunction, k: Keyed, principal: Principal): Promise<void> {
    const r: KeyReservation = {
      accountId: principal.accountId,
      credential: principal.keyId ? `key:${principal.keyId}` : `user:${principal.userId}`,
      key: k.key,
      holder: randomUUID(),
      method: req.method,
      path: req.originalUrl.split('?')[0],
    };
    const streamed = takesBody && Boolean(req.is(['text/*', 'multipart/form-data']));
    // A row freed between the insert and the read: try again, twice at most.
    for (let attempt = 0; !(await keys.reserve(r)); attempt++) {
      const existing = await keys.existing(r);
      if (existing.state === 'running' || (existing.state === 'none' && attempt >= 2)) throw inUse();
      if (existing.state === 'none') continue;
      if (existing.method !== r.method || existing.path !== r.path) throw reused(existing);
      let bodyHash = k.bodyHash ?? EMPTY_BODY;
      if (streamed) {
        // Read to its end (and no further than any stored request's could be) to compare it.
        const hashing = watchBody(req, options.maxStreamedBytes);
        req.resume();
        bodyHash = (await hashing) ?? Buffer.alloc(0);
      }
      if (!equal(fingerprint(req, bodyHash), existing.requestHash)) throw reused(existing);
      return replay(res, existing.status, existing.open());
    }

    let bodyHash: () => Promise<Buffer | null> = () => Promise.resolve(k.bodyHash ?? EMPTY_BODY);
    if (streamed) {
      // The handler reads the body through a stand-in, while the fingerprint reads it too.
      const hashing = watchBody(req, Infinity);
      const body = new PassThrough();
      pipeline(req, body, () => {});
      standInForBody(req, body);
      // A body the handler left unread is read and dropped, as Node does for a request nobody read.
      res.once('finish', () => {
        if (req.readableEnded) return;
        req.unpipe(body);
        req.resume();
      });
      bodyHash = () => (req.readableEnded ? Promise.race([hashing, delay(BODY_HASH_WAIT_MS)]) : Promise.resolve(null));
    }
    captureAnswer(res, async (chunks) => {
      try {
        const hash = await bodyHash();
        const status = res.statusCode;
        if (!chunks || !hash || !isStored(status)) return await keys.release(r);
        const headers: Record<string, string> = {};
        for (const name of STORED_HEADERS) {
          const value = res.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        const plain = Buffer.concat([Buffer.from(JSON.stringify(headers) + '\n'), ...chunks]);
        await keys.answer(r, fingerprint(req, hash), status, plain);
      } catch (error) {
        log.error({ err: error }, 'could not store the answer of an idempotent request');
        await keys.release(r).catch(() => {});
      }
    });
    next();
  }
}

const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && timingSafeEqual(a, b);

const delay = (ms: number) => new Promise<null>((resolve) => setTimeout(() => resolve(null), ms).unref());

function replay(res: Response, status: number, plain: Buffer): void {
  const newline = plain.indexOf(0x0a);
  const headers = JSON.parse(plain.subarray(0, newline).toString('utf8')) as Record<string, string>;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader('Idempotent-Replayed', 'true');
  res.status(status).end(plain.subarray(newline + 1));
}

type End = (chunk?: unknown, encoding?: unknown, callback?: unknown) => Response;
type Write = (chunk: unknown, encoding?: unknown, callback?: unknown) => boolean;

/**
 * Collects the answer as it is written and hands it to `settle` (null when larger than
 * MAX_STORED_ANSWER_BYTES) before the response ends, so a client holding the answer finds it
 * stored.
 */
function captureAnswer(res: Response, settle: (chunks: Buffer[] | null) => Promise<void>): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const collect = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const bytes =
      typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array);
    size += bytes.length;
    if (size <= MAX_STORED_ANSWER_BYTES) chunks.push(bytes);
  };
  const write = res.write.bind(res) as Write;
  const end = res.end.bind(res) as End;
  (res as unknown as { write: Write }).write = (chunk, encoding, callback) => {
    collect(chunk, encoding);
    return write(chunk, encoding, callback);
  };
  (res as unknown as { end: End }).end = (chunk, encoding, callback) => {
    if (settled) return end(chunk, encoding, callback);
    settled = true;
    collect(chunk, encoding);
    void settle(size <= MAX_STORED_ANSWER_BYTES ? chunks : null).finally(() => end(chunk, encoding, callback));
    return res;
  };
}

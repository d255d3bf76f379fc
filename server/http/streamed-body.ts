import type { Readable } from 'node:stream';
import type { Request } from 'express';

const standIns = new WeakMap<Request, Readable>();

/**
 * The body of a request that streams to its handler (CSV uploads): the request itself, or the
 * stream standing in for it while something else reads the body too (idempotency's fingerprint).
 */
export const streamedBody = (req: Request): Readable => standIns.get(req) ?? req;

export function standInForBody(req: Request, body: Readable): void {
  standIns.set(req, body);
}

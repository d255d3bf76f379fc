import type { NextFunction, Request, Response } from 'express';

/**
 * CORS for the public subscribe route, so that a form or script on any site can post to it: it
 * takes no credential, so any origin may call it (and no cookie is ever read).
 */
export function publicCors(req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'POST');
  res.setHeader('Access-Control-Allow-Headers', 'Content-Type, Idempotency-Key');
  res.setHeader('Access-Control-Max-Age', '86400');
  res.status(204).end();
}

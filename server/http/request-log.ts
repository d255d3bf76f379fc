import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.ts';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

/**
 * Gives each request an id (kept from `X-Request-Id` when it looks sane) and logs one line when
 * it ends: the path without its query string, which may carry tokens.
 */
export function requestLog(log: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.get('x-request-id');
    req.id = given && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      // A router strips its mount from `req.path` while it runs, and the answer may end inside it.
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info({ reqId: req.id, method: req.method, path: req.baseUrl + req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}

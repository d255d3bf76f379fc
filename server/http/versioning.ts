import type { NextFunction, Request, Response } from 'express';
import { API_BASE } from '../contract/document.ts';

/**
 * `/api/x`, `/api/v1/x` and `/v1/x` are one API: everything is rewritten to `/api/v1/x` before
 * routing, so each route and the validator are declared once.
 */
export function canonicalApiPath(req: Request, _res: Response, next: NextFunction): void {
  const url = req.url;
  let canonical: string | null = null;
  if (url === '/v1' || url.startsWith('/v1/') || url.startsWith('/v1?')) canonical = '/api' + url;
  else if ((url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) && !/^\/api\/v1(\/|\?|$)/.test(url)) {
    canonical = API_BASE + url.slice('/api'.length);
  }
  if (canonical !== null) {
    req.url = canonical;
    // The validator matches on originalUrl.
    req.originalUrl = canonical;
  }
  next();
}

export function apiVersionHeader(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('API-Version', '1.0');
  next();
}

import type { Request, Response } from 'express';
import type { components } from '../../generated/openapi.d.ts';
import { API_BASE } from '../contract/document.ts';
import { SESSION_DAYS } from './tokens.ts';

type Session = components['schemas']['Session'];

/**
 * The browser's refresh token: `HttpOnly` (page scripts never read it), `SameSite=Strict` (no
 * other site's request carries it), sent to the refresh path only, and `Secure` over HTTPS.
 * Reading it also takes a JSON body asking for it, which no cross-site form can send.
 */
export const REFRESH_COOKIE = 'sendline_refresh';
const COOKIE_PATH = `${API_BASE}/auth/refresh`;

/**
 * Beside it, a marker the dashboard's scripts can read, holding no secret: without it the page
 * knows there is no session to refresh, instead of asking and getting a 401 the browser logs.
 */
export const SESSION_MARKER_COOKIE = 'sendline_session';
const MARKER_PATH = '/app';

function options(req: Request) {
  return { httpOnly: true, sameSite: 'strict' as const, secure: req.secure, path: COOKIE_PATH };
}

function markerOptions(req: Request) {
  return { sameSite: 'strict' as const, secure: req.secure, path: MARKER_PATH };
}

/** Moves the session's refresh token from the answer into the cookie. */
export function answerWithCookie(req: Request, res: Response, session: Session): Session {
  const { refresh_token: token, ...rest } = session;
  if (token) {
    const maxAge = SESSION_DAYS * 86_400_000;
    res.cookie(REFRESH_COOKIE, token, { ...options(req), maxAge });
    res.cookie(SESSION_MARKER_COOKIE, '1', { ...markerOptions(req), maxAge });
  }
  return rest;
}

export function clearRefreshCookie(req: Request, res: Response): void {
  res.clearCookie(REFRESH_COOKIE, options(req));
  res.clearCookie(SESSION_MARKER_COOKIE, markerOptions(req));
}

/** The refresh cookie's value, if the request carries one. */
export function refreshCookie(req: Request): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0 || part.slice(0, eq).trim() !== REFRESH_COOKIE) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

import type { ServerResponse } from 'node:http';

/**
 * Set on every answer before anything else writes it: no content sniffing, and no framing (pages
 * with a Content-Security-Policy of their own repeat `frame-ancestors 'none'` in it).
 */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
}

/** The same, as header lines of a raw HTTP answer (WebSocket upgrades that are refused). */
export const SECURITY_HEADER_LINES = "X-Content-Type-Options: nosniff\r\nX-Frame-Options: DENY\r\nContent-Security-Policy: frame-ancestors 'none'\r\n";

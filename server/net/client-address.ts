import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';

/** The trust function Express compiled from `trust proxy` (`app.get('trust proxy fn')`). */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The client's address for requests Express does not see (the tracking routes, WebSocket
 * upgrades), by the same rule as `req.ip`: `X-Forwarded-For` counts only through trusted proxies.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  const forwarded = req.headers['x-forwarded-for'];
  return clientAddressOf(req.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(', ') : forwarded, trust);
}

/** The same, from what a request carried, for work done after it was answered. */
export function clientAddressOf(remoteAddress: string | undefined, forwardedFor: string | undefined, trust: TrustProxy): string {
  // proxy-addr reads only these two fields of a request, so they stand in for a whole one.
  const carried = { headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress } };
  return proxyaddr(carried as unknown as IncomingMessage, trust);
}

/** `::ffff:198.51.100.7` (an IPv4 client on a dual-stack socket) counts as `198.51.100.7`. */
export function plainAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1] : ip;
}

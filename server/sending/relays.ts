import type { Config, RelayRoute, RelaySettings, Stream } from '../config.ts';
import { domainOf } from '../email.ts';

export type { RelaySettings, Stream };

/** The relays a process sends through, and how mail picks among them. */
export interface RelayPlan {
  relays: RelaySettings[];
  routes: RelayRoute[];
}

/**
 * `SMTP_RELAYS` and `SMTP_ROUTES`, or the one relay of `SMTP_URL` (`url`, the capture server's
 * when it is unset) as today: named `default`, `SMTP_POOL_SIZE` connections, paced by
 * `SEND_RATE_PER_SECOND` alone.
 */
export function relayPlan(sending: Config['sending'], url: string): RelayPlan {
  return sending.relays ?? { relays: [{ name: 'default', url, maxConnections: sending.poolSize, ratePerSecond: 0 }], routes: [] };
}

/** How closely a route's domain matches: 2 + its labels for the domain or a parent, 1 for none, 0 for another domain. */
function domainMatch(route: RelayRoute, domain: string): number {
  if (route.domain === null) return 1;
  if (domain !== route.domain && !domain.endsWith(`.${route.domain}`)) return 0;
  return 2 + route.domain.split('.').length;
}

/**
 * The relays, in the order to try them, for mail of `stream` from `fromEmail`: the route of the
 * nearest domain (the From domain, else its nearest parent, else none) and, among those, the one
 * naming the stream before one for any stream. No route: every relay, in `SMTP_RELAYS` order.
 */
export function routeFor(plan: RelayPlan, stream: Stream, fromEmail: string): string[] {
  const domain = domainOf(fromEmail);
  let best: RelayRoute | null = null;
  let bestScore = 0;
  for (const route of plan.routes) {
    const match = domainMatch(route, domain);
    if (!match || (route.stream !== null && route.stream !== stream)) continue;
    const score = match * 2 + (route.stream === null ? 0 : 1);
    if (score > bestScore) [best, bestScore] = [route, score];
  }
  return best ? best.relays : plan.relays.map((relay) => relay.name);
}

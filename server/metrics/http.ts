import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Metrics } from './metrics.ts';

const ROUTE = Symbol('metrics route');

/** Names the route template a response answers, e.g. `/api/v1/contacts/{id}`: its `route` label. */
export function labelRoute(res: ServerResponse, route: string): void {
  (res as ServerResponse & { [ROUTE]?: string })[ROUTE] = route;
}

/**
 * The routes outside the contract, by their fixed part: the rest of their paths are tokens and
 * ids, which would make a label value per link mailed.
 */
const FIXED_ROUTES: [prefix: string, route: string][] = [
  ['/t/o/', '/t/o/{token}'],
  ['/t/c/', '/t/c/{token}'],
  ['/u/', '/u/{token}'],
  ['/v/', '/v/{token}'],
  ['/l/confirm/', '/l/confirm/{token}'],
  ['/l/subscribed/', '/l/subscribed/{list}'],
  ['/archive/', '/archive/*'],
  ['/app/', '/app/*'],
  ['/docs', '/docs*'],
  ['/api/v1/openapi.', '/api/v1/openapi'],
];
const EXACT_ROUTES = new Set(['/', '/healthz', '/readyz', '/metrics', '/app']);

function routeOf(req: IncomingMessage, res: ServerResponse): string {
  const labelled = (res as ServerResponse & { [ROUTE]?: string })[ROUTE];
  if (labelled) return labelled;
  const path = (req.url ?? '/').split('?')[0];
  if (EXACT_ROUTES.has(path)) return path;
  return FIXED_ROUTES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? 'unmatched';
}

/** Counts and times a request once its answer is written. */
export function observeRequest(metrics: Metrics, req: IncomingMessage, res: ServerResponse): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    const labels = { method: req.method ?? 'UNKNOWN', route: routeOf(req, res), status: String(res.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
  });
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Pool } from '../db/pool.ts';
import { readSchemaState } from '../db/schema.ts';
import { withinTime, type Metrics } from '../metrics/metrics.ts';
import { VERSION } from '../version.ts';

/** Where the process is: `migrating` covers waiting for another process's migrations too. */
export type Phase = 'starting' | 'migrating' | 'serving' | 'stopping';

export interface Readiness {
  ready: boolean;
  status: string;
}

/** A database that does not answer this soon is as good as unreachable, for a probe. */
const READINESS_TIMEOUT_MS = 2000;

const digest = (text: string) => createHash('sha256').update(text).digest();

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * `/healthz` (alive: the process answers), `/readyz` (it should be sent work: started, the
 * database answering with every migration of this release applied, not stopping) and
 * `/metrics`. They answer from the moment the port is open, before the database is, so an
 * orchestrator sees a start that waits for migrations as alive and not ready.
 */
export class Probes {
  phase: Phase = 'starting';
  private readonly metrics: Metrics;
  private readonly token: Buffer | null;
  private serving: { pool: Pool; schema: { migration: string | null; migrations: number } } | null = null;

  /** `metricsToken`: the bearer token `/metrics` answers on this listener; null: it is not served here. */
  constructor(metrics: Metrics, metricsToken: string | null) {
    this.metrics = metrics;
    this.token = metricsToken === null ? null : digest(metricsToken);
    // From the first scrape on, starting included. Its query waits for the other gauges' reading
    // of the pool to have been taken, so that it is not counted as waiting.
    metrics.gauge('sendline_ready', '1 while /readyz answers 200.', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return (await this.readiness()).ready ? 1 : 0;
    });
  }

  serve(pool: Pool, schema: { migration: string | null; migrations: number }): void {
    this.serving = { pool, schema };
    this.phase = 'serving';
  }

  async readiness(): Promise<Readiness> {
    if (this.phase !== 'serving' || !this.serving) return { ready: false, status: this.phase };
    try {
      const state = await withinTime(readSchemaState(this.serving.pool), READINESS_TIMEOUT_MS);
      if (state.pending.length) return { ready: false, status: 'migrations pending' };
      if (state.unknown.length) return { ready: false, status: 'database migrated by a newer release' };
    } catch {
      return { ready: false, status: 'database unreachable' };
    }
    // Between the query and now a stop may have begun.
    return this.phase === 'serving' ? { ready: true, status: 'ready' } : { ready: false, status: this.phase };
  }

  /** Answers a probe or `/metrics`; false for any other request. */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (path === '/healthz') {
      const schema = this.serving?.schema ?? {};
      json(res, 200, { status: this.phase === 'serving' ? 'ok' : this.phase, version: VERSION, ...schema });
    } else if (path === '/readyz') {
      void this.readiness().then(({ ready, status }) => json(res, ready ? 200 : 503, { status }));
    } else if (path === '/metrics' && this.token) {
      if (this.authorized(req)) void exposition(this.metrics, res);
      else json(res, 401, { status: 'a bearer token (METRICS_TOKEN) is required' }, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
    } else return false;
    return true;
  }

  private authorized(req: IncomingMessage): boolean {
    const [scheme, given] = (req.headers.authorization ?? '').split(' ');
    return scheme?.toLowerCase() === 'bearer' && given !== undefined && timingSafeEqual(digest(given), this.token!);
  }
}

/** The metrics in Prometheus' text format. */
async function exposition(metrics: Metrics, res: ServerResponse): Promise<void> {
  try {
    const text = await metrics.registry.metrics();
    res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
    res.end(text);
  } catch {
    json(res, 503, { status: 'metrics could not be read' });
  }
}

/** `METRICS_PORT`'s listener: `/metrics` without a token, for a scraper on the same machine or network. */
export async function startMetricsListener(metrics: Metrics, port: number, host: string): Promise<Server> {
  const server = createServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/metrics' && (req.method === 'GET' || req.method === 'HEAD')) void exposition(metrics, res);
    else json(res, 404, { status: 'only /metrics is served here' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

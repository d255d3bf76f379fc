/**
 * Event delivery under load. Webhooks: 20,000 events fanned out to three local endpoints, one
 * answering after 1 s; deliveries per second to the two fast ones, how far the slow one got in
 * that time, against a baseline that POSTs the same bodies straight to the fast endpoints.
 * WebSocket: 1,000 subscribed clients, events per second and latency from commit to receipt.
 */
import { createServer, request, type Server } from 'node:http';
import WebSocket from 'ws';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, peakRssMb, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 1000);
const WS_EVENTS = 200;
const PACED_EVENTS = 50;

function receiver(delayMs: number): Promise<{ server: Server; url: string; count: () => number }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      const answer = () => res.writeHead(200).end('ok');
      if (delayMs) setTimeout(answer, delayMs);
      else answer();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, count: () => count })),
  );
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The same POSTs, straight from here, with the concurrency Sendline allows per endpoint. */
async function baseline(urls: string[], bodies: string[], concurrency: number): Promise<number> {
  const started = performance.now();
  await Promise.all(
    urls.flatMap((url) =>
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let i = worker; i < bodies.length; i += concurrency) {
          await new Promise<void>((resolve, reject) => {
            const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
              res.resume();
              res.on('end', resolve);
            });
            req.on('error', reject);
            req.end(bodies[i]);
          });
        }
      }),
    ),
  );
  return (urls.length * bodies.length) / ((performance.now() - started) / 1000);
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function webhooksBenchmark(): Promise<void> {
  const dir = scratchDir('webhooks');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WS_MAX_BUFFERED_BYTES: String(64 * 1024 * 1024),
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  const [fastA, fastB, slow] = await Promise.all([receiver(0), receiver(0), receiver(1000)]);
  const sockets: WebSocket[] = [];
  try {
    const owner = await newAccount(server.url, 'bench');
    for (const r of [fastA, fastB, slow]) await owner.api('POST', '/api/webhooks', { body: { url: r.url, events: ['contact.*'] } });

    const bodies = Array.from({ length: 2000 }, (_, n) => JSON.stringify({ id: `evt_${n}`, type: 'contact.updated', data: { contact_id: `ct_${n}`, n } }));
    const base = await baseline([fastA.url, fastB.url], bodies, 4);
    const before = { a: fastA.count(), b: fastB.count() };

    const started = performance.now();
    await pool.query(
      `insert into events (id, account_id, type, data) select sendline_id('evt'), $1, 'contact.updated', jsonb_build_object('contact_id', 'ct_' || n, 'n', n) from generate_series(1, $2) n`,
      [owner.accountId, EVENTS],
    );
    await until(() => fastA.count() - before.a >= EVENTS && fastB.count() - before.b >= EVENTS, 600_000);
    const seconds = (performance.now() - started) / 1000;
    const slowDone = slow.count();
    const fastRate = (2 * EVENTS) / seconds;

    // WebSocket fan-out.
    const wsUrl = server.url.replace('http://', 'ws://') + '/api/ws';
    const latencies: number[] = [];
    let received = 0;
    for (let i = 0; i < CLIENTS; i++) {
      const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${owner.token}` } });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.on('message', (raw: Buffer) => {
        const message = JSON.parse(raw.toString());
        if (message.type !== 'contact.created') return;
        received++;
        latencies.push(Date.now() - message.data.sent_ms);
      });
      ws.send(JSON.stringify({ type: 'subscribe', events: ['contact.created'] }));
      sockets.push(ws);
    }
    await new Promise((r) => setTimeout(r, 500));
    const commit = () =>
      pool.query(
        `insert into events (id, account_id, type, data, dispatched) values (sendline_id('evt'), $1, 'contact.created', jsonb_build_object('sent_ms', $2::bigint), true)`,
        [owner.accountId, Date.now()],
      );
    // Throughput: events committed back to back.
    const wsStarted = performance.now();
    for (let i = 0; i < WS_EVENTS; i++) await commit();
    await until(() => received >= CLIENTS * WS_EVENTS, 300_000);
    const wsSeconds = (performance.now() - wsStarted) / 1000;
    // Latency: events paced at 10 a second, so no backlog is measured.
    latencies.length = 0;
    received = 0;
    for (let i = 0; i < PACED_EVENTS; i++) {
      await commit();
      await new Promise((r) => setTimeout(r, 100));
    }
    await until(() => received >= CLIENTS * PACED_EVENTS, 60_000);
    latencies.sort((a, b) => a - b);
    const rss = peakRssMb(server.proc.pid!);

    const table = [
      `Run: ${runContext()}; Sendline in its own process, receivers and WebSocket clients in the harness process.`,
      '',
      '| measure | value |',
      '|---|---|',
      `| baseline: the harness POSTing 2 × 2,000 bodies straight to the two fast endpoints (4 at a time each, no keep-alive, as Sendline) | ${Math.round(base)} POST/s |`,
      `| Sendline: ${EVENTS.toLocaleString('en')} events → deliveries to the two fast endpoints | ${Math.round(fastRate)} deliveries/s (${seconds.toFixed(1)} s for ${(2 * EVENTS).toLocaleString('en')}) |`,
      `| ratio Sendline / baseline | **${(fastRate / base).toFixed(2)}** |`,
      `| the slow endpoint (1 s per answer, 4 at a time) in the same time | ${slowDone.toLocaleString('en')} deliveries: it held nobody back |`,
      `| WebSocket: ${CLIENTS.toLocaleString('en')} clients × ${WS_EVENTS} events committed one by one | ${Math.round((CLIENTS * WS_EVENTS) / wsSeconds).toLocaleString('en')} events/s received |`,
      `| WebSocket latency, commit to receipt (${PACED_EVENTS} events at 10/s to the same ${CLIENTS.toLocaleString('en')} clients) | p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms |`,
      '',
      `Sendline peak RSS: ${rss} MB.`,
    ].join('\n');
    recordSection('webhooks', table);
    console.log(table);
  } finally {
    for (const ws of sockets) ws.terminate();
    server.proc.kill('SIGTERM');
    await server.exited;
    for (const r of [fastA, fastB, slow]) {
      r.server.closeAllConnections();
      r.server.close();
    }
    await pool.end();
    await database.stop();
  }
}

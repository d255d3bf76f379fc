/**
 * Transactional email against the campaign path, in one run on one server and database, through
 * a relay that discards (its own process): `POST /emails` with one recipient from 32
 * connections; `POST /emails/batch` of 100 from 8; then a campaign sending as many messages as
 * the batches did. For each: messages accepted and delivered to the relay per second, and the
 * server's and PostgreSQL's CPU per message; for the single sends also the request p99 and the
 * accept → relay p99 (`sent_at - created_at`). Recorded as ratios: the machine is shared.
 */
import autocannon from 'autocannon';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, childPostgresPid, cpuSeconds, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const SECONDS = Number(process.env.BENCH_TRANSACTIONAL_SECONDS ?? 15);
/** The target for single sends, requests a second. */
const TARGET_RATE = 1000;
const POOL = 10;
const BATCH = 500;
const HTML = '<html><body><h1>Your receipt</h1><p>Order 1042: two items.</p><p><a href="https://shop.example/orders/1042">See your order</a></p></body></html>';
const email = (to: string) => ({
  from: { email: 'receipts@shop.example', name: 'Shop' },
  to: [{ email: to }],
  subject: 'Your receipt',
  html: HTML,
  text: 'Order 1042',
});

interface Phase {
  messages: number;
  acceptedPerSecond: number;
  deliveredPerSecond: number;
  p99: number | null;
  relayP99Ms: number | null;
  cpu: { server: number; postgres: number };
}

export async function transactionalBenchmark(): Promise<void> {
  const dir = scratchDir('transactional');
  const relay = await spawnListening(['bench/smtp-discard.ts']);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const db = benchPool(database.url);
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
      SMTP_POOL_SIZE: String(POOL),
      SEND_BATCH_SIZE: String(BATCH),
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const made = await owner.api('POST', '/api/api-keys', { body: { name: 'bench', scopes: ['read', 'write'], rate_limit_per_minute: 100000 } });
    const headers = { 'x-api-key': made.body.key as string, 'content-type': 'application/json' };
    const postgres = childPostgresPid();
    const cpuNow = () => ({ server: cpuSeconds(server.proc.pid!), postgres: cpuSeconds(postgres) });

    /** Loads one route, waits until every message it queued reached the relay, and measures. */
    async function phase(route: string, body: unknown, connections: number, perRequest: number, overallRate?: number): Promise<Phase> {
      const before = cpuNow();
      const started = new Date();
      const load = { url: `${server.url}${route}`, method: 'POST' as const, headers, body: JSON.stringify(body), duration: SECONDS, connections };
      const result = await autocannon(overallRate ? { ...load, overallRate } : load);
      const accepted = result['2xx'] * perRequest;
      for (;;) {
        const { rows } = await db.query<{ n: string }>("select count(*) as n from emails where status in ('queued', 'sending')");
        if (Number(rows[0].n) === 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const used = cpuNow();
      const { rows } = await db.query<{ n: string; seconds: number; p99: number }>(
        `select count(*) as n, extract(epoch from max(sent_at) - $1::timestamptz)::float8 as seconds,
           (percentile_cont(0.99) within group (order by extract(epoch from sent_at - created_at)) * 1000)::float8 as p99
         from emails where created_at >= $1 and status = 'delivered'`,
        [started],
      );
      const messages = Number(rows[0].n);
      if (messages < accepted) throw new Error(`${accepted} accepted, ${messages} delivered`);
      return {
        messages,
        acceptedPerSecond: accepted / SECONDS,
        deliveredPerSecond: messages / rows[0].seconds,
        p99: perRequest === 1 ? result.latency.p99 : null,
        relayP99Ms: rows[0].p99,
        cpu: { server: ((used.server - before.server) * 1e6) / messages, postgres: ((used.postgres - before.postgres) * 1e6) / messages },
      };
    }

    const single = await phase('/api/emails', email('ada@inbox.example'), 32, 1);
    // The figure: 1,000 requests a second, its latency at that rate rather than at saturation.
    const atTarget = await phase('/api/emails', email('ada@inbox.example'), 32, 1, TARGET_RATE);
    const batch = await phase('/api/emails/batch', { emails: Array.from({ length: 100 }, (_, i) => email(`person${i}@inbox.example`)) }, 8, 100);

    // The reference: a campaign to as many contacts, the same content, tracking off as above.
    const contacts = Math.min(batch.messages, 100_000);
    const csv = 'email\n' + Array.from({ length: contacts }, (_, i) => `person${i}@list.example`).join('\n') + '\n';
    const auth = { authorization: `Bearer ${owner.token}` };
    const upload = await fetch(`${server.url}/api/contacts/import`, { method: 'POST', headers: { ...auth, 'content-type': 'text/csv' }, body: csv });
    const imp = (await upload.json()) as { id: string };
    for (;;) {
      const state = (await (await fetch(`${server.url}/api/contacts/import/${imp.id}`, { headers: auth })).json()) as { status: string };
      if (state.status === 'completed') break;
      if (state.status === 'failed') throw new Error('import failed');
      await new Promise((r) => setTimeout(r, 200));
    }
    const created = await owner.api('POST', '/api/campaigns', {
      body: { name: 'reference', subject: 'Your receipt', from_email: 'receipts@shop.example', content: HTML, track_opens: false, track_clicks: false },
    });
    const before = cpuNow();
    const started = performance.now();
    await owner.api('POST', `/api/campaigns/${created.body.id}/send`);
    for (;;) {
      const state = await owner.api('GET', `/api/campaigns/${created.body.id}`);
      if (state.body.status !== 'sending') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const campaignSeconds = (performance.now() - started) / 1000;
    const used = cpuNow();
    const campaign = {
      perSecond: contacts / campaignSeconds,
      cpu: ((used.server - before.server + (used.postgres - before.postgres)) * 1e6) / contacts,
    };

    const cpuOf = (p: Phase) => p.cpu.server + p.cpu.postgres;
    const ratio = (n: number) => n.toFixed(2);
    const table = [
      `Run: ${runContext()}; SMTP pool of ${POOL}, batches of ${BATCH}, one process, ${SECONDS} s of load per route; figures are ratios to the campaign path measured in the same run.`,
      '',
      "| path | delivered/s ÷ campaign msg/s | accepted/s ÷ campaign msg/s | CPU per message ÷ campaign's (server + PostgreSQL) |",
      '|---|---|---|---|',
      `| \`POST /emails\`, 1 recipient, 32 connections | ${ratio(single.deliveredPerSecond / campaign.perSecond)} | ${ratio(single.acceptedPerSecond / campaign.perSecond)} | ${ratio(cpuOf(single) / campaign.cpu)} |`,
      `| \`POST /emails/batch\` of 100, 8 connections | ${ratio(batch.deliveredPerSecond / campaign.perSecond)} | ${ratio(batch.acceptedPerSecond / campaign.perSecond)} | ${ratio(cpuOf(batch) / campaign.cpu)} |`,
      '',
      `Single sends: request p99 ÷ the issue's 50 ms target: ${ratio(single.p99! / 50)}; accept → relay p99 ÷ its 2 s target: ${ratio(single.relayP99Ms! / 2000)}.`,
      `At the issue's ${TARGET_RATE.toLocaleString('en')} requests a second (32 connections, autocannon's \`overallRate\`): ${Math.round(atTarget.acceptedPerSecond).toLocaleString('en')} accepted a second, request p99 ÷ 50 ms: ${ratio(atTarget.p99! / 50)}; accept → relay p99 ÷ 2 s: ${ratio(atTarget.relayP99Ms! / 2000)}.`,
    ].join('\n');
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify({ single, atTarget, batch, campaign }, null, 2));
    writeFileSync(path.join(dir, 'figures.json'), JSON.stringify({ single, atTarget, batch, campaign }, null, 2));
    recordSection('transactional', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    relay.stop();
    await db.end();
    await database.stop();
  }
}

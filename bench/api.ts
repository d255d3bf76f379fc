/**
 * The cost of the API stack: an authenticated call (API key, shared rate-limit counter, contract
 * validation) against a bare Express route answering the same JSON, in the same run; then a page
 * of every list endpoint over 20,000 records each, and creating contacts, with the CPU each
 * request costs the server and its PostgreSQL.
 */
import autocannon from 'autocannon';
import { createLogger } from '../server/logger.ts';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { newAccount, newApiKey } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, childPostgresPid, cpuSeconds, peakRssMb, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 32;
const CONTACTS = 20_000;
const IMPORT_ROWS = 10_000;
const CAMPAIGNS = '/api/campaigns';

interface Measured {
  server: number;
  postgres: number | null;
}

interface Run {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** CPU µs per answered request: the server, its PostgreSQL (null for the bare baseline). */
  cpu: { server: number; postgres: number | null };
}

/** Loads the target for `seconds` (after a 2 s warm-up) and fails on any answer but `status`. */
async function hammer(options: autocannon.Options, status: number, measured: Measured, seconds = SECONDS): Promise<Run> {
  await autocannon({ ...options, connections: CONNECTIONS, duration: 2 });
  const before = { server: cpuSeconds(measured.server), postgres: measured.postgres ? cpuSeconds(measured.postgres) : 0 };
  const result = await autocannon({ ...options, connections: CONNECTIONS, duration: seconds });
  const answered = (result.statusCodeStats as Record<string, { count: number } | undefined>)[String(status)]?.count ?? 0;
  const total = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
  if (total !== answered || result.errors || result.timeouts) {
    throw new Error(`${options.url}: ${total - answered} answers other than ${status}, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  const perRequest = (cpuSecs: number) => Math.round((cpuSecs * 1e6) / answered);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpu: {
      server: perRequest(cpuSeconds(measured.server) - before.server),
      postgres: measured.postgres ? perRequest(cpuSeconds(measured.postgres) - before.postgres) : null,
    },
  };
}

const row = (label: string, run: Run) => `| ${label} | ${run.requestsPerSecond} | ${run.p50} | ${run.p99} | ${run.cpu.server} | ${run.cpu.postgres ?? '–'} |`;

/**
 * What the other list endpoints read, written in SQL as the send and tracking paths would leave
 * it: a message to each contact, an open, a click and a bounce of each, an event each, and a
 * webhook delivery of each event.
 */
async function seedLists(pool: ReturnType<typeof benchPool>, ids: { accountId: string; campaignId: string; webhookId: string }): Promise<void> {
  await pool.query(
    `insert into messages (id, account_id, campaign_id, contact_id, email, status, sent_at)
     select sendline_id('msg'), account_id, $2, id, email, 'delivered', now() - interval '1 hour' from contacts where account_id = $1`,
    [ids.accountId, ids.campaignId],
  );
  for (const [table, columns, values] of [
    ['opens', 'user_agent, machine, is_first, is_first_human', `'Mozilla/5.0', false, true, true`],
    ['clicks', 'link, url, is_first, is_first_for_link', `0, 'https://shop.example/p', true, true`],
    ['bounces', 'type, reason, source', `'hard', 'mailbox unknown', 'dsn'`],
  ]) {
    await pool.query(
      `insert into ${table} (id, account_id, campaign_id, message_id, contact_id, email, occurred_at, ${columns})
       select sendline_id('${table.slice(0, 2)}'), account_id, campaign_id, id, contact_id, email, now() - interval '30 minutes', ${values}
       from messages where campaign_id = $1`,
      [ids.campaignId],
    );
  }
  await pool.query(
    `insert into events (id, account_id, type, data, dispatched)
     select sendline_id('evt'), account_id, 'email.delivered',
            json_build_object('message_id', id, 'campaign_id', campaign_id, 'contact_id', contact_id, 'email', email), true
     from messages where campaign_id = $1`,
    [ids.campaignId],
  );
  await pool.query(
    `insert into webhook_deliveries (id, webhook_id, account_id, event_id, event_type, status, attempts, status_code, latency_ms)
     select sendline_id('whd'), $2, account_id, id, type, 'succeeded', 1, 200, 12 from events where account_id = $1 and type = 'email.delivered'`,
    [ids.accountId, ids.webhookId],
  );
}

export async function apiBenchmark(): Promise<void> {
  const dir = scratchDir('api');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', ...serverTuning() },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const sendline = { server: server.proc.pid!, postgres: childPostgresPid() };
  try {
    const owner = await newAccount(server.url, 'bench');
    // A key per target: the contract caps a key at 100,000 requests a minute.
    const newKey = async () => (await newApiKey(owner, server.url, { rate_limit_per_minute: 100_000 })).key.key as string;
    const { api } = await newApiKey(owner, server.url, { rate_limit_per_minute: 100_000 });
    for (let i = 1; i <= 3; i++) {
      await api('POST', CAMPAIGNS, {
        body: { name: `Campaign ${i}`, subject: 'Hello {{ first_name }}', from_email: 'news@shop.example', content: '<p>Hi</p>' },
      });
    }
    // The contacts the pages read: half tagged `news`, a tenth unsubscribed.
    for (let start = 0; start < CONTACTS; start += IMPORT_ROWS) {
      const contacts = Array.from({ length: IMPORT_ROWS }, (_, i) => ({
        email: `reader-${start + i}@list.example`,
        first_name: `Reader${start + i}`,
        tags: (start + i) % 2 ? ['news'] : ['other'],
        attributes: { plan: (start + i) % 3 ? 'free' : 'pro' },
      }));
      const done = await api('POST', '/api/contacts/import', { body: { contacts, mode: 'upsert' } });
      if (done.status >= 300) throw new Error(`import: ${done.status} ${JSON.stringify(done.body)}`);
    }
    // Statistics as autovacuum leaves them within a minute of the import: without them PostgreSQL
    // plans a page of 20,000 contacts as for a few dozen.
    const pool = benchPool(database.url);
    const { body: hook } = await api('POST', '/api/webhooks', { body: { url: 'https://hooks.example/in', events: ['payment.received'] } });
    const campaignId = ((await api('GET', CAMPAIGNS)).body as { data: { id: string }[] }).data[0].id;
    await seedLists(pool, { accountId: owner.accountId, campaignId, webhookId: (hook as { id: string }).id });
    // Vacuumed too, as autovacuum would soon after such inserts: not during the runs below.
    await pool.query('vacuum analyze');
    await pool.end();
    const body = (await api('GET', CAMPAIGNS)).body;
    const bare = await spawnListening(['bench/bare-express.ts', CAMPAIGNS, JSON.stringify(body)]);
    let baseline: Run;
    try {
      baseline = await hammer({ url: `http://127.0.0.1:${bare.port}${CAMPAIGNS}` }, 200, { server: bare.pid, postgres: null });
    } finally {
      bare.stop();
    }
    const campaigns = await hammer({ url: server.url + CAMPAIGNS, headers: { 'x-api-key': await newKey() } }, 200, sendline);
    const contactsPage = await hammer({ url: `${server.url}/api/contacts?limit=50`, headers: { 'x-api-key': await newKey() } }, 200, sendline);
    const filteredPage = await hammer(
      { url: `${server.url}/api/contacts?limit=50&status=subscribed&tag=news`, headers: { 'x-api-key': await newKey() } },
      200,
      sendline,
    );
    const lists: [string, Run][] = [];
    for (const path of [
      `/api/campaigns/${campaignId}/messages?limit=50`,
      '/api/events?limit=50',
      '/api/tracking/opens?limit=50',
      '/api/tracking/clicks?limit=50',
      '/api/tracking/bounces?limit=50',
      `/api/webhooks/${(hook as { id: string }).id}/deliveries?limit=50`,
    ]) {
      lists.push([path.replace(/(cmp|wh)_\w+/, '{id}'), await hammer({ url: server.url + path, headers: { 'x-api-key': await newKey() } }, 200, sendline)]);
    }
    let created = 0;
    const creating = await hammer(
      {
        url: `${server.url}/api/contacts`,
        method: 'POST',
        headers: { 'x-api-key': await newKey(), 'content-type': 'application/json' },
        // Each request a new contact.
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({ ...req, body: JSON.stringify({ email: `new-${++created}@bench.example`, first_name: 'New', tags: ['bench'] }) }),
          },
        ],
      },
      201,
      sendline,
    );
    const rss = peakRssMb(server.proc.pid!);
    const ratio = (campaigns.requestsPerSecond / baseline.requestsPerSecond).toFixed(2);
    const table = [
      `Run: ${runContext()}; ${SECONDS} s per target after a 2 s warm-up, ${CONNECTIONS} connections, autocannon in the harness process; ${CONTACTS.toLocaleString('en')} contacts, and as many messages, events, opens, clicks, bounces and deliveries.`,
      '',
      '| target | requests/s | p50 ms | p99 ms | CPU µs per request: server | PostgreSQL |',
      '|---|---|---|---|---|---|',
      row('bare Express, same JSON as `GET /api/campaigns`', baseline),
      row(`\`GET ${CAMPAIGNS}\` (3 campaigns)`, campaigns),
      row('`GET /api/contacts?limit=50`', contactsPage),
      row('`GET /api/contacts?limit=50&status=subscribed&tag=news`', filteredPage),
      ...lists.map(([path, run]) => row(`\`GET ${path}\``, run)),
      row('`POST /api/contacts`', creating),
      '',
      `Ratio \`GET ${CAMPAIGNS}\` / bare: **${ratio}**. Sendline peak RSS: ${rss} MB.`,
    ].join('\n');
    recordSection('api', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await database.stop();
  }
}

/**
 * The public tracking routes under load: open pixels and clicks against a bare node:http server
 * answering the same GIF in the same run, then a check that every answered hit became exactly
 * one stored row.
 */
import autocannon from 'autocannon';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { TokenSigner } from '../server/tracked-links/tokens.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, childPostgresPid, cpuSeconds, peakRssMb, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const MESSAGES = 10_000;
const CONNECTIONS = 32;
const JWT_SECRET = 'bench-jwt-secret-that-is-long-enough-0123456789';
const KEY_RING = [{ id: 'bench1', key: Buffer.from('bench key ring key, 32 bytes long').toString('base64') }];

/** The processes whose CPU a run accounts for; the harness (autocannon) is this process. */
interface Measured {
  server: number;
  postgres?: number;
}

interface Run {
  requestsPerSecond: number;
  /** CPU µs per answered request, per process. */
  cpu: { server: number; postgres: number | null; harness: number };
  p50: number;
  p99: number;
  answered: number;
  /** Requests sent, including those still in flight when the run ended (served, not counted). */
  sent: number;
}

async function hammer(base: string, paths: string[], seconds: number, expectStatus: 200 | 302, measured: Measured): Promise<Run> {
  const before = { server: cpuSeconds(measured.server), postgres: measured.postgres ? cpuSeconds(measured.postgres) : 0, harness: process.cpuUsage() };
  const result = await autocannon({ url: base, connections: CONNECTIONS, duration: seconds, requests: paths.map((p) => ({ method: 'GET', path: p })) });
  const answered = expectStatus === 200 ? result['2xx'] : result['3xx'];
  const others = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'] - answered;
  if (others || result.errors || result.timeouts)
    throw new Error(`${base}: ${others} unexpected statuses, ${result.errors} errors, ${result.timeouts} timeouts`);
  const harness = process.cpuUsage(before.harness);
  const perRequest = (cpuSecs: number) => Math.round((cpuSecs * 1e6) / answered);
  const cpu = {
    server: perRequest(cpuSeconds(measured.server) - before.server),
    postgres: measured.postgres ? perRequest(cpuSeconds(measured.postgres) - before.postgres) : null,
    harness: perRequest((harness.user + harness.system) / 1e6),
  };
  return {
    requestsPerSecond: Math.round(result.requests.average),
    cpu,
    p50: result.latency.p50,
    p99: result.latency.p99,
    answered,
    sent: result.requests.sent,
  };
}

export async function trackingBenchmark(): Promise<void> {
  const dir = scratchDir('tracking');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      JWT_SECRET,
      SECRET_KEYS: KEY_RING.map(({ id, key }) => `${id}:${key}`).join(','),
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  try {
    const owner = await newAccount(server.url, 'bench');
    const { body: campaign } = await owner.api('POST', '/api/campaigns', {
      body: { name: 'bench', subject: 'Hi', from_email: 'news@shop.example', content: '<a href="https://shop.example/">x</a>' },
    });
    // Each message to a contact of the account, as a campaign sends them: an open is also listed
    // under its contact (one more index entry than an open without one).
    const { rows } = await pool.query(
      `with recipients as (
         insert into contacts (id, account_id, email, first_name, status)
         select sendline_id('ct'), $1, 'reader' || i || '@inbox.example', 'Reader', 'subscribed' from generate_series(1, $3) i
         returning id, email
       )
       insert into messages (id, account_id, campaign_id, contact_id, email, status, sent_at)
       select sendline_id('msg'), $1, $2, id, email, 'delivered', now() - interval '1 hour' from recipients
       returning id`,
      [owner.accountId, campaign.id, MESSAGES],
    );
    const signer = new TokenSigner(KEY_RING);
    const pixels = rows.map((r) => `/t/o/${signer.sign({ kind: 'open', messageId: r.id })}.gif`);
    // Clicks on messages the pixel run surely opened (autocannon walks the list from the start on
    // every connection): a click on an unopened message would also record an open.
    const clicks = rows
      .slice(0, 1000)
      .map((r, i) => `/t/c/${signer.sign({ kind: 'click', messageId: r.id, link: 0, url: `https://shop.example/p/${i % 10}` })}`);

    const bare = await spawnListening(['bench/bare-gif.ts']);
    const bareUrl = `http://127.0.0.1:${bare.port}`;
    const sendline = { server: server.proc.pid!, postgres: childPostgresPid() };
    const pixelRuns: Run[] = [];
    const rounds: { baseline: Run; opens: Run }[] = [];
    try {
      await hammer(bareUrl, pixels, 2, 200, { server: bare.pid });
      pixelRuns.push(await hammer(server.url, pixels, 2, 200, sendline));
      // Taken in turns: a slow spell of this shared machine falls on both targets alike.
      for (let i = 0; i < ROUNDS; i++) {
        const baseline = await hammer(bareUrl, pixels, SECONDS, 200, { server: bare.pid });
        const opens = await hammer(server.url, pixels, SECONDS, 200, sendline);
        pixelRuns.push(opens);
        rounds.push({ baseline, opens });
      }
    } finally {
      bare.stop();
    }
    const click = await hammer(server.url, clicks, SECONDS, 302, sendline);
    const rss = peakRssMb(server.proc.pid!);
    // A graceful stop flushes what is buffered; then count what was stored.
    server.proc.kill('SIGTERM');
    await server.exited;
    const {
      rows: [stored],
    } = await pool.query(
      'select (select count(*) from opens where campaign_id = $1)::int as opens, (select count(*) from clicks where campaign_id = $1)::int as clicks',
      [campaign.id],
    );
    // Each click on a message never opened also records an open (none here: every message was opened).
    // Requests in flight when a run stops were sent but not counted as answered: the server may
    // or may not have seen them. Every answered request must be stored once, and no more than sent.
    const sum = (runs: Run[], key: 'answered' | 'sent') => runs.reduce((total, run) => total + run[key], 0);
    const answered = { opens: sum(pixelRuns, 'answered'), clicks: click.answered };
    const sent = { opens: sum(pixelRuns, 'sent'), clicks: click.sent };
    const within = (n: number, low: number, high: number) => n >= low && n <= high;
    const exact = within(stored.opens, answered.opens, sent.opens) && within(stored.clicks, answered.clicks, sent.clicks);
    const ratios = rounds.map((r) => r.opens.requestsPerSecond / r.baseline.requestsPerSecond);
    const sorted = [...ratios].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    const row = (label: string, run: Run) =>
      `| ${label} | ${run.requestsPerSecond} | ${run.p50} | ${run.p99} | ${run.cpu.server} | ${run.cpu.postgres ?? '–'} | ${run.cpu.harness} |`;
    const table = [
      `Run: ${runContext()}; ${ROUNDS} rounds of ${SECONDS} s per target in turns after a 2 s warm-up of each, ${CONNECTIONS} connections, autocannon in the harness process, ${MESSAGES.toLocaleString('en')} distinct messages, each to a contact of its own.`,
      '',
      '| target | requests/s | p50 ms | p99 ms | CPU µs per request: server | PostgreSQL | autocannon |',
      '|---|---|---|---|---|---|---|',
      ...rounds.flatMap((r, i) => [
        row(`bare \`node:http\`, same GIF (round ${i + 1})`, r.baseline),
        row(`Sendline \`GET /t/o/{token}.gif\` (round ${i + 1})`, r.opens),
      ]),
      row('Sendline `GET /t/c/{token}` (302)', click),
      '',
      `Ratio pixel / bare by round: ${ratios.map((r) => r.toFixed(2)).join(', ')}; median **${median.toFixed(2)}**. Sendline peak RSS: ${rss} MB.`,
      `Stored after a graceful stop: ${stored.opens.toLocaleString('en')} opens for ${answered.opens.toLocaleString('en')} answered / ${sent.opens.toLocaleString('en')} sent pixel requests, ${stored.clicks.toLocaleString('en')} clicks for ${answered.clicks.toLocaleString('en')} answered / ${sent.clicks.toLocaleString('en')} sent click requests (the difference: requests in flight when autocannon stopped): ${exact ? '**one row per request, none lost, none doubled**' : '**MISMATCH**'}.`,
    ].join('\n');
    recordSection('tracking', table);
    console.log(table);
    if (!exact) throw new Error('stored rows do not match answered requests');
  } finally {
    if (server.proc.exitCode === null) {
      server.proc.kill('SIGTERM');
      await server.exited;
    }
    await pool.end();
    await database.stop();
  }
}

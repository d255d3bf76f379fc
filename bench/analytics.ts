/**
 * Analytics at scale: 1M contacts, 100 campaigns and 10M tracking events seeded in SQL, with the
 * rollups those records make (as tracking's store keeps them), then the latency of the overview
 * and the campaign endpoints, one request at a time.
 */
import pg from 'pg';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const CAMPAIGNS = 100;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const CHUNK = 1_000_000;
const SAMPLES = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Events by kind: 60% opens, 30% clicks, 5% bounces, 5% unsubscribes, over 30 days. */
async function seed(pool: pg.Pool, accountId: string, campaignIds: string[]): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < CONTACTS; from += CHUNK) {
    await pool.query(
      `insert into contacts (id, account_id, email, first_name, status)
       select sendline_id('ct'), $1, 'reader' || i || '@inbox' || (i % 50) || '.example', 'Reader', case when i % 40 = 0 then 'unsubscribed' else 'subscribed' end
       from generate_series($2::int, $3::int) i`,
      [accountId, from + 1, Math.min(CONTACTS, from + CHUNK)],
    );
  }
  const perKind = (share: number) => Math.round(EVENTS * share);
  // Campaign and hour from independent hashes of i: every campaign has events in every hour.
  const common = `$1, c.ids[1 + abs(hashint4(i)) % ${campaignIds.length}], 'msg_bench' || (i % 1000000), 'reader' || (i % ${CONTACTS}) || '@inbox' || (i % 50) || '.example', now() - (abs(hashint4(i + 7)) % 720) * interval '1 hour'`;
  const kinds: [string, number, string, string][] = [
    [
      'opens',
      perKind(0.6),
      'account_id, campaign_id, message_id, email, occurred_at, user_agent, machine, is_first, is_first_human',
      `'Mozilla/5.0 (bench)', i % 10 = 0, i % 3 = 0, i % 3 = 0 and i % 10 <> 0`,
    ],
    [
      'clicks',
      perKind(0.3),
      'account_id, campaign_id, message_id, email, occurred_at, link, url, is_first, is_first_for_link',
      `i % 5, 'https://shop.example/p/' || (i % 5), i % 4 = 0, i % 3 = 0`,
    ],
    [
      'bounces',
      perKind(0.05),
      'account_id, campaign_id, message_id, email, occurred_at, type, source',
      `case when i % 3 = 0 then 'soft' when i % 11 = 0 then 'complaint' else 'hard' end, 'dsn'`,
    ],
    ['unsubscribes', perKind(0.05), 'account_id, campaign_id, message_id, email, occurred_at, source', `'one_click'`],
  ];
  for (const [table, count, columns, extra] of kinds) {
    for (let from = 0; from < count; from += CHUNK) {
      await pool.query(
        `insert into ${table} (id, ${columns})
         select 'b' || i || '_${table}', ${common}, ${extra}
         from generate_series($2::int, $3::int) i, (select $4::text[] as ids) c`,
        [accountId, from + 1, Math.min(count, from + CHUNK), campaignIds],
      );
    }
  }
  await rollUp(pool);
  await pool.query('vacuum analyze');
  return (performance.now() - started) / 1000;
}

/** The rollups of the seeded records, as tracking's store adds them with each batch. */
async function rollUp(pool: pg.Pool): Promise<void> {
  await pool.query(`
    insert into campaign_hourly (campaign_id, bucket, account_id, opens, unique_opens, human_opens, clicks, unique_clicks, bounces_hard, bounces_soft, complaints, unsubscribes)
    select campaign_id, bucket, min(account_id), sum(opens), sum(unique_opens), sum(human_opens), sum(clicks), sum(unique_clicks),
           sum(bounces_hard), sum(bounces_soft), sum(complaints), sum(unsubscribes)
    from (
      select campaign_id, date_trunc('hour', occurred_at, 'UTC') as bucket, account_id, 1 as opens, is_first::int as unique_opens, is_first_human::int as human_opens,
             0 as clicks, 0 as unique_clicks, 0 as bounces_hard, 0 as bounces_soft, 0 as complaints, 0 as unsubscribes from opens
      union all select campaign_id, date_trunc('hour', occurred_at, 'UTC'), account_id, 0, 0, 0, 1, is_first::int, 0, 0, 0, 0 from clicks
      union all select campaign_id, date_trunc('hour', occurred_at, 'UTC'), account_id, 0, 0, 0, 0, 0,
             (type = 'hard')::int, (type = 'soft')::int, (type = 'complaint')::int, 0 from bounces
      union all select campaign_id, date_trunc('hour', occurred_at, 'UTC'), account_id, 0, 0, 0, 0, 0, 0, 0, 0, 1 from unsubscribes
    ) hits group by 1, 2`);
  await pool.query(`
    insert into campaign_links (account_id, campaign_id, url, total_clicks, unique_clicks)
    select account_id, campaign_id, url, count(*), count(*) filter (where is_first_for_link) from clicks group by 1, 2, 3`);
  await pool.query(`
    insert into campaign_domains (account_id, campaign_id, domain, opens, clicks, bounces)
    select account_id, campaign_id, domain, sum(opens), sum(clicks), sum(bounces) from (
      select account_id, campaign_id, lower(split_part(email, '@', 2)) as domain, 1 as opens, 0 as clicks, 0 as bounces from opens where is_first
      union all select account_id, campaign_id, lower(split_part(email, '@', 2)), 0, 1, 0 from clicks where is_first
      union all select account_id, campaign_id, lower(split_part(email, '@', 2)), 0, 0, 1 from bounces where type <> 'complaint'
    ) hits group by 1, 2, 3`);
}

async function timeRequests(url: string, headers: Record<string, string>): Promise<{ p50: number; p95: number; max: number }> {
  const times: number[] = [];
  for (let i = 0; i < SAMPLES + 20; i++) {
    const started = performance.now();
    const res = await fetch(url, { headers });
    await res.json();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= 20) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1)! };
}

export async function analyticsBenchmark(): Promise<void> {
  const dir = scratchDir('analytics');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', API_KEY_RATE_LIMIT: '100000', ...serverTuning() },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  try {
    const owner = await newAccount(server.url, 'bench');
    const { rows } = await pool.query(
      `insert into campaigns (id, account_id, name, subject, from_email, content, status, started_at, completed_at, recipients, sent, delivered)
       select sendline_id('cmp'), $1, 'Campaign ' || i, 'Hi', 'news@shop.example', '<p>Hi</p>', 'completed', now() - interval '30 days', now(), 10000, 10000, 10000
       from generate_series(1, $2) i returning id`,
      [owner.accountId, CAMPAIGNS],
    );
    const campaignIds = rows.map((r) => r.id);
    const seedSeconds = await seed(pool, owner.accountId, campaignIds);
    const {
      rows: [counts],
    } = await pool.query(
      `select (select count(*) from contacts)::int as contacts, ((select count(*) from opens) + (select count(*) from clicks) + (select count(*) from bounces) + (select count(*) from unsubscribes))::int as events,
              (select count(*) from campaign_hourly)::int as buckets`,
    );
    const headers = { authorization: `Bearer ${owner.token}` };
    const overview = await timeRequests(`${server.url}/api/analytics/overview`, headers);
    const ranged = await timeRequests(
      `${server.url}/api/analytics/overview?since=${encodeURIComponent(new Date(Date.now() - 7 * 86400_000).toISOString())}`,
      headers,
    );
    const campaign = await timeRequests(`${server.url}/api/analytics/campaigns/${campaignIds[0]}`, headers);
    const ms = (n: number) => n.toFixed(1);
    const table = [
      `Run: ${runContext()}; ${counts.contacts.toLocaleString('en')} contacts, ${CAMPAIGNS} campaigns, ${counts.events.toLocaleString('en')} tracking events over 30 days (seeded in ${seedSeconds.toFixed(0)} s, rollups included), ${counts.buckets.toLocaleString('en')} hourly rollup rows; ${SAMPLES} sequential requests per endpoint after 20 warm-up requests.`,
      '',
      '| endpoint | p50 ms | p95 ms | max ms |',
      '|---|---|---|---|',
      `| \`GET /api/analytics/overview\` | ${ms(overview.p50)} | ${ms(overview.p95)} | ${ms(overview.max)} |`,
      `| \`GET /api/analytics/overview?since=<7 days ago>\` | ${ms(ranged.p50)} | ${ms(ranged.p95)} | ${ms(ranged.max)} |`,
      `| \`GET /api/analytics/campaigns/{id}\` | ${ms(campaign.p50)} | ${ms(campaign.p95)} | ${ms(campaign.max)} |`,
    ].join('\n');
    recordSection('analytics', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await pool.end();
    await database.stop();
  }
}

/**
 * Segment previews at scale: 1M contacts with 10 custom fields and tags, 100 campaigns and 10M
 * events (1M messages sent to a quarter of the contacts; 6M opens of half of them, 3M clicks of a
 * fifth), seeded in SQL; then the latency of `POST /segments/preview` (count only) for rules of
 * up to 5 conditions, with and without engagement, one request at a time.
 */
import pg from 'pg';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount, newApiKey } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const CAMPAIGNS = 100;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const CHUNK = 500_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

const FIELDS: [string, string, string[]?][] = [
  ['plan', 'choice', ['free', 'pro', 'team', 'enterprise']],
  ['score', 'number'],
  ['city', 'text'],
  ['signup', 'date'],
  ['vip', 'boolean'],
  ['company', 'text'],
  ['age', 'number'],
  ['country', 'choice', ['GB', 'FR', 'DE', 'ES', 'IT']],
  ['ltv', 'number'],
  ['newsletter', 'boolean'],
];

async function seed(pool: pg.Pool, accountId: string, campaignIds: string[]): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < CONTACTS; from += CHUNK) {
    await pool.query(
      `insert into contacts (id, account_id, email, first_name, last_name, status, tags, attributes, created_at)
       select 'ct_bench' || i, $1, 'reader' || i || '@inbox' || (i % 50) || '.example', 'Reader' || (i % 1000), 'Last' || (i % 5000),
         case when i % 40 = 0 then 'unsubscribed' else 'subscribed' end,
         case when i % 10 = 0 then array['vip', 'news'] when i % 3 = 0 then array['news'] when i % 7 = 0 then array['churned'] else array[]::text[] end,
         jsonb_build_object('plan', (array['free', 'pro', 'team', 'enterprise'])[1 + i % 4], 'score', i % 100,
           'city', (array['London', 'Paris', 'Berlin', 'Madrid', 'Rome'])[1 + i % 5], 'signup', to_char(date '2020-01-01' + (i % 2000), 'YYYY-MM-DD'),
           'vip', i % 10 = 0, 'company', 'Company ' || (i % 10000), 'age', 18 + i % 60, 'country', (array['GB', 'FR', 'DE', 'ES', 'IT'])[1 + i % 5],
           'ltv', (i % 1000) * 1.5, 'newsletter', i % 2 = 0),
         now() - (i % 365) * interval '1 day'
       from generate_series($2::int, $3::int) i`,
      [accountId, from + 1, Math.min(CONTACTS, from + CHUNK)],
    );
  }
  // A tenth of the events are messages sent, to a quarter of the contacts (about 4 each).
  const contact = (expr: string, share = 1) => `'ct_bench' || (1 + abs(hashint4(${expr})) % ${Math.max(1, Math.floor(CONTACTS * share))})`;
  const messages = Math.round(EVENTS * 0.1);
  for (let from = 0; from < messages; from += CHUNK) {
    await pool.query(
      `insert into messages (id, account_id, campaign_id, contact_id, email, status, sent_at, created_at)
       select 'msg_bench' || i, $1, c.ids[1 + i % ${campaignIds.length}], ${contact('i', 0.25)}, 'x@inbox.example', 'delivered', t, t
       from generate_series($2::int, $3::int) i, (select $4::text[] as ids) c, lateral (select now() - (abs(hashint4(i + 3)) % 90) * interval '1 day' as t) w`,
      [accountId, from + 1, Math.min(messages, from + CHUNK), campaignIds],
    );
  }
  // Each open or click belongs to a message and names its campaign and contact; half the messages
  // are opened (12 opens each), a fifth clicked (15 clicks each), the first of each marked `is_first`.
  const kinds: [string, number, number, string, string][] = [
    [
      'opens',
      Math.round(EVENTS * 0.6),
      Math.round(messages / 2),
      'account_id, campaign_id, message_id, contact_id, email, occurred_at, user_agent, machine, is_first, is_first_human',
      `'Mozilla/5.0 (bench)', false, i <= $5, i <= $5`,
    ],
    [
      'clicks',
      Math.round(EVENTS * 0.3),
      Math.round(messages / 5),
      'account_id, campaign_id, message_id, contact_id, email, occurred_at, link, url, is_first, is_first_for_link',
      `i % 5, 'https://shop.example/p/' || (i % 5), i <= $5, i <= $5`,
    ],
  ];
  for (const [table, count, engaged, columns, extra] of kinds) {
    for (let from = 0; from < count; from += CHUNK) {
      await pool.query(
        `insert into ${table} (id, ${columns})
         select 'b' || i || '_${table}', $1, c.ids[1 + m % ${campaignIds.length}], 'msg_bench' || m, ${contact('m', 0.25)}, 'x@inbox.example',
           now() - (abs(hashint4(i + 7)) % 2160) * interval '1 hour', ${extra}
         from generate_series($2::int, $3::int) i, (select $4::text[] as ids) c, lateral (select 1 + i % $5::int as m) e`,
        [accountId, from + 1, Math.min(count, from + CHUNK), campaignIds, engaged],
      );
    }
  }
  await pool.query('vacuum analyze');
  return (performance.now() - started) / 1000;
}

type Rule = Record<string, unknown>;
const where = (field: string, operator: string, value?: unknown): Rule => ({ field, operator, ...(value === undefined ? {} : { value }) });

const CASES: [string, Rule][] = [
  ['1 condition: `attributes.plan equals pro`', where('attributes.plan', 'equals', 'pro')],
  ['1 condition: `tags contains vip`', where('tags', 'contains', 'vip')],
  [
    '3 conditions: tag, number, text',
    { all: [where('tags', 'contains', 'news'), where('attributes.score', 'greater_than', 50), where('attributes.city', 'equals', 'london')] },
  ],
  [
    '5 conditions, nested any/all',
    {
      all: [
        where('attributes.plan', 'in', ['pro', 'team']),
        where('attributes.score', 'between', [10, 80]),
        where('created_at', 'within_last_days', 90),
        { any: [where('tags', 'not_contains', 'churned'), where('attributes.signup', 'after', '2024-01-01')] },
      ],
    },
  ],
  ['engagement: opened in the last 30 days, and plan', { all: [{ engagement: 'opened', within_days: 30 }, where('attributes.plan', 'equals', 'pro')] }],
  ['engagement: clicked a given campaign', { engagement: 'clicked', campaign_id: '{{campaign}}' }],
  ['engagement: never opened', { engagement: 'not_opened' }],
  ['engagement: received at least 3, and tag', { all: [{ engagement: 'received', at_least: 3 }, where('tags', 'contains', 'news')] }],
];

async function timePreviews(url: string, headers: Record<string, string>, rules: Rule): Promise<{ count: number; p50: number; p95: number; max: number }> {
  const times: number[] = [];
  let count = 0;
  for (let i = 0; i < SAMPLES + 3; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/api/segments/preview`, { method: 'POST', headers, body: JSON.stringify({ rules, sample_size: 0 }) });
    const body = (await res.json()) as { count: number };
    if (res.status !== 200) throw new Error(`${JSON.stringify(rules)}: ${res.status} ${JSON.stringify(body)}`);
    count = body.count;
    if (i >= 3) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { count, p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1)! };
}

export async function segmentsBenchmark(): Promise<void> {
  const dir = scratchDir('segments');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', API_KEY_RATE_LIMIT: '100000', ...serverTuning() },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  try {
    const owner = await newAccount(server.url, 'bench');
    // An API key: seeding outlasts a session's token.
    const { key } = (await newApiKey(owner, server.url, { scopes: ['read', 'write'] })).key as { key: string };
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    for (const [key, type, options] of FIELDS) {
      const res = await fetch(`${server.url}/api/fields`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ key, label: key, type, ...(options ? { options } : {}) }),
      });
      if (res.status !== 201) throw new Error(`field ${key}: ${res.status}`);
    }
    const { rows } = await pool.query(
      `insert into campaigns (id, account_id, name, subject, from_email, content, status, started_at, completed_at, recipients, sent, delivered)
       select sendline_id('cmp'), $1, 'Campaign ' || i, 'Hi', 'news@shop.example', '<p>Hi</p>', 'completed', now() - interval '90 days', now(), 10000, 10000, 10000
       from generate_series(1, $2) i returning id`,
      [owner.accountId, CAMPAIGNS],
    );
    const campaignIds = rows.map((r) => r.id as string);
    const seedSeconds = await seed(pool, owner.accountId, campaignIds);
    const {
      rows: [counts],
    } = await pool.query(
      `select (select count(*) from contacts)::int as contacts,
              ((select count(*) from messages) + (select count(*) from opens) + (select count(*) from clicks))::int as events`,
    );
    const ms = (n: number) => n.toFixed(0);
    const lines: string[] = [];
    for (const [name, rules] of CASES) {
      const given = JSON.parse(JSON.stringify(rules).replaceAll('{{campaign}}', campaignIds[0])) as Rule;
      const t = await timePreviews(server.url, headers, given);
      lines.push(`| ${name} | ${t.count.toLocaleString('en')} | ${ms(t.p50)} | ${ms(t.p95)} | ${ms(t.max)} |`);
      console.log(lines.at(-1));
    }
    const table = [
      `Run: ${runContext()}; ${counts.contacts.toLocaleString('en')} contacts with ${FIELDS.length} custom fields, ${CAMPAIGNS} campaigns, ${counts.events.toLocaleString('en')} events (messages sent, opens, clicks; seeded in ${seedSeconds.toFixed(0)} s); ${SAMPLES} sequential previews (\`sample_size: 0\`) per rule set after 3 warm-up requests.`,
      '',
      '| rules | matching | p50 ms | p95 ms | max ms |',
      '|---|---|---|---|---|',
      ...lines,
    ].join('\n');
    recordSection('segments', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await pool.end();
    await database.stop();
  }
}

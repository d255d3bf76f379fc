/**
 * Freezing a campaign's audience at send: 1,000,000 contacts seeded in SQL, then
 * `POST /campaigns/{id}/send` for audiences of about half of them, chosen by a tag rule (the
 * baseline: the audience as it was before lists and segments), a list, and a segment of a
 * custom field. The send answers once the audience is counted and frozen (its rules and its
 * bound); the relay notes the first message; each campaign is cancelled before the next.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount, newApiKey } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { benchPool, childPostgresPid, cpuSeconds, recordSection, runContext, scratchDir, serverTuning, spawnListening } from './lib.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const CHUNK = 250_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function seed(pool: pg.Pool, accountId: string, listId: string): Promise<void> {
  for (let from = 1; from <= CONTACTS; from += CHUNK) {
    const to = Math.min(CONTACTS, from + CHUNK - 1);
    await pool.query(
      `insert into contacts (id, account_id, email, status, tags, attributes, created_at)
       select 'ct_bench' || i, $1, 'reader' || i || '@inbox' || (i % 50) || '.example', 'subscribed',
         case when i % 2 = 0 then array['half'] else array['other'] end,
         jsonb_build_object('newsletter', i % 2 = 0, 'plan', (array['free', 'pro'])[1 + i % 2]),
         now() - (i % 365) * interval '1 day'
       from generate_series($2::int, $3::int) i`,
      [accountId, from, to],
    );
    await pool.query(
      `insert into list_members (list_id, contact_id, account_id, status, confirmed_at)
       select $4, 'ct_bench' || i, $1, 'subscribed', now() from generate_series($2::int, $3::int) i where i % 2 = 0`,
      [accountId, from, to, listId],
    );
  }
  await pool.query('vacuum analyze');
}

export async function audienceBenchmark(): Promise<void> {
  const dir = scratchDir('audience');
  const firstFile = path.join(dir, 'first-message');
  writeFileSync(firstFile, '');
  const relay = await spawnListening(['bench/smtp-discard.ts', firstFile]);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    {
      DATABASE_URL: database.url,
      DATA_DIR: dir,
      ALLOW_SIGNUP: 'true',
      API_KEY_RATE_LIMIT: '100000',
      SMTP_URL: `smtp://127.0.0.1:${relay.port}`,
      ...serverTuning(),
    },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  try {
    const owner = await newAccount(server.url, 'bench');
    const { key } = (await newApiKey(owner, server.url, { scopes: ['read', 'write'] })).key as { key: string };
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${server.url}/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const answer = (await res.json()) as { id: string; stats: { recipients: number } };
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    await call('POST', '/fields', { key: 'newsletter', label: 'Newsletter', type: 'boolean' });
    const list = await call('POST', '/lists', { name: 'Readers' });
    const segment = await call('POST', '/segments', { name: 'Newsletter readers', rules: { field: 'attributes.newsletter', operator: 'equals', value: true } });
    const seeding = performance.now();
    await seed(pool, owner.accountId, list.id);
    const seedSeconds = (performance.now() - seeding) / 1000;

    const audiences: [string, Record<string, unknown>][] = [
      ['tag rule `tags_any: [half]` (baseline)', { tags_any: ['half'] }],
      ['a list, every other contact subscribed', { list_ids: [list.id] }],
      ['a segment `attributes.newsletter equals true`', { segment_ids: [segment.id] }],
    ];
    const postgres = childPostgresPid();
    const cpu = () => cpuSeconds(postgres) + cpuSeconds(server.proc.pid!);
    const times = new Map<string, { seconds: number; cpu: number; first: number }[]>(audiences.map(([name]) => [name, []]));
    const firstMessage = async () => {
      for (;;) {
        const at = Number(readFileSync(firstFile, 'utf8'));
        if (at) return at;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    let recipients = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, audience] of audiences) {
        const campaign = await call('POST', '/campaigns', { name, subject: 'News', from_email: 'news@shop.example', content: '<p>Hi</p>', audience });
        writeFileSync(firstFile, '');
        process.kill(relay.pid, 'SIGUSR2');
        await new Promise((resolve) => setTimeout(resolve, 100));
        const [started, cpuBefore, startedAt] = [performance.now(), cpu(), Date.now()];
        recipients = (await call('POST', `/campaigns/${campaign.id}/send`)).stats.recipients;
        const [seconds, cpuUsed] = [(performance.now() - started) / 1000, cpu() - cpuBefore];
        times.get(name)!.push({ seconds, cpu: cpuUsed, first: ((await firstMessage()) - startedAt) / 1000 });
        await call('POST', `/campaigns/${campaign.id}/cancel`);
        // The batches in flight at the cancel still reach the relay: not the next campaign's first message.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        await pool.query('delete from messages where campaign_id = $1', [campaign.id]);
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const of = (name: string, measure: 'seconds' | 'cpu' | 'first') => median(times.get(name)!.map((t) => t[measure]));
    const baseline = of(audiences[0][0], 'seconds');
    const table = [
      `Run: ${runContext()}; ${CONTACTS.toLocaleString('en')} contacts (seeded in ${seedSeconds.toFixed(0)} s), audiences of ${recipients.toLocaleString('en')}; median of ${ROUNDS} sends each, every campaign cancelled and its messages deleted before the next.`,
      '',
      '| audience | send → frozen (answered), s | ÷ tag rule | CPU s, PostgreSQL + server | send → first message at the relay, s |',
      '|---|---|---|---|---|',
      ...audiences.map(
        ([name]) =>
          `| ${name} | ${of(name, 'seconds').toFixed(2)} | ${(of(name, 'seconds') / baseline).toFixed(2)} | ${of(name, 'cpu').toFixed(2)} | ${of(name, 'first').toFixed(2)} |`,
      ),
    ].join('\n');
    recordSection('audience', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await pool.end();
    await database.stop();
    relay.stop();
  }
}

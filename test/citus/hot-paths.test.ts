import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../server/campaigns/store.ts';
import { sqlOnClient } from '../../server/db/kysely.ts';
import type { Sendline } from '../../server/start.ts';
import { fileDatabaseUrl } from '../databases.ts';
import { newAccount, spawnTestServer, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';

/**
 * On the cluster (the `citus` project): the statements of the hot paths, recorded as this
 * process's API server runs them, each explained on the coordinator. A statement routed to one
 * shard shows `Task Count: 1`; one that runs on every shard shows the shard count.
 */
interface Statement {
  text: string;
  values: unknown[];
}

const recorded: Statement[] = [];
let recording = false;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with `.call` on a client
const query = pg.Client.prototype.query as unknown as (this: pg.Client, text: string, values?: unknown[]) => Promise<pg.QueryResult>;
// Every query of this process's clients, the API server's included, while `recording`.
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [first, second] = args as [string | { text?: string; values?: unknown[] }, unknown];
  if (recording) {
    const text = typeof first === 'string' ? first : first?.text;
    const values = typeof first === 'string' ? (Array.isArray(second) ? second : []) : (first?.values ?? []);
    if (text) recorded.push({ text, values });
  }
  return (query as (...a: unknown[]) => unknown).apply(this, args);
} as typeof pg.Client.prototype.query;

/** The statements `work` runs, from its start until `done` answers true. */
async function statementsOf(work: () => Promise<unknown>, done: () => Promise<boolean> = () => Promise.resolve(true)): Promise<Statement[]> {
  recorded.length = 0;
  recording = true;
  try {
    await work();
    await waitFor(async () => (await done()) || undefined);
  } finally {
    recording = false;
  }
  return [...recorded];
}

const SHARD_COUNT = /Task Count: (\d+)/g;

/** How many shards each statement that reads or writes tables runs on: 0 for none (no distributed table). */
async function shardsOf(statements: Statement[]): Promise<{ text: string; tasks: number }[]> {
  const client = new pg.Client({ connectionString: fileDatabaseUrl() });
  await client.connect();
  try {
    const explained = [];
    for (const { text, values } of statements) {
      if (!/^\s*(select|insert|update|delete|with)\b/i.test(text) || /^\s*select\s+pg_notify/i.test(text)) continue;
      const plan = await query.call(client, `explain ${text}`, values);
      const tasks = [
        ...plan.rows
          .map((r) => r['QUERY PLAN'])
          .join('\n')
          .matchAll(SHARD_COUNT),
      ].map((m) => Number(m[1]));
      explained.push({ text: text.replace(/\s+/g, ' ').trim(), tasks: Math.max(0, ...tasks) });
    }
    return explained;
  } finally {
    await client.end();
  }
}

const PUBLIC_URL = 'https://mail.example.test';
let sink: SmtpSink;
let api: Sendline;
let worker: ServerProcess;
let account: TestAccount;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Only the API in this process: a worker's polling would be recorded with it.
  api = await startTestServer({ SENDLINE_ROLE: 'api', PUBLIC_URL });
  worker = await spawnTestServer({ SENDLINE_ROLE: 'worker', SMTP_URL: sink.url, PUBLIC_URL });
  account = await newAccount(api.url, 'hot');
});

afterAll(async () => {
  worker?.proc.kill('SIGTERM');
  await worker?.exited;
  await api?.stop();
  await sink?.stop();
});

describe('the hot paths on the cluster', () => {
  it('list and create contacts on the account’s shard alone', async () => {
    const listed = await shardsOf(await statementsOf(() => account.api('GET', '/api/contacts?limit=10')));
    const created = await shardsOf(await statementsOf(() => account.api('POST', '/api/contacts', { body: { email: 'ada@hot.example' } })));
    for (const statements of [listed, created]) {
      expect(statements.some((s) => /\bcontacts\b/.test(s.text) && s.tasks === 1)).toBe(true);
      expect(statements.filter((s) => s.tasks > 1)).toEqual([]);
    }
  });

  it('claim a campaign’s messages, and record an open, on the account’s shard', async () => {
    await account.api('POST', '/api/contacts', { body: { email: 'bo@hot.example' } });
    const { body: campaign } = await account.api('POST', '/api/campaigns', {
      body: { name: 'Hot', subject: 'Hot', from_email: 'news@hot.example', content: '<p>Hi</p>' },
    });
    expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
    const mail = await waitFor(() => sink.received.find((r) => r.to === 'bo@hot.example'));
    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(String(mail.mail.html))![1].replace(PUBLIC_URL, api.url);

    const client = new pg.Client({ connectionString: fileDatabaseUrl() });
    await client.connect();
    try {
      const claim = await shardsOf(await statementsOf(() => messages.claim(sqlOnClient(client), account.accountId, campaign.id, '', 100, 60)));
      expect(claim.some((s) => /\bmessages\b/.test(s.text) && s.tasks === 1)).toBe(true);
      expect(claim.filter((s) => s.tasks > 1)).toEqual([]);

      const opened = async () => (await query.call(client, 'select count(*)::int as n from opens where account_id = $1', [account.accountId])).rows[0].n > 0;
      const pixelWrite = await shardsOf(await statementsOf(() => fetch(pixel, { headers: { 'user-agent': 'Mozilla/5.0 (Macintosh)' } }), opened));
      // The batch locks its messages on their account's shard; the opens go in by COPY, which
      // Citus routes row by row (and EXPLAIN cannot show).
      expect(pixelWrite.some((s) => /^select .* from messages where account_id = \$1 and id = any\(.* for update$/.test(s.text) && s.tasks === 1)).toBe(true);
      // A token names its message, not its account: one read on every shard finds the accounts of a batch's messages.
      expect(pixelWrite.filter((s) => s.tasks > 1).map((s) => s.text)).toEqual([
        expect.stringMatching(/^select account_id, array_agg\(id order by id\) as ids from "messages" where id = any/),
      ]);
    } finally {
      await client.end();
    }
  });
});

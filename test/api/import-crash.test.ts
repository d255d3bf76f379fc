import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newAccount, type TestAccount } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';
import { fileDatabaseUrl } from '../databases.ts';

const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
});

const env = () => ({
  DATABASE_URL: fileDatabaseUrl(),
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-crash-')),
  JWT_SECRET: 'crash-test-secret-shared-by-both-processes-01234',
  ALLOW_SIGNUP: 'true',
  IMPORT_BATCH_ROWS: '250',
});

/** 60,000 rows: 1% invalid emails, 2% repeats of earlier rows. */
function csvFile(): string {
  const lines = ['email,first_name,plan'];
  for (let i = 1; i <= 60_000; i++) {
    if (i % 100 === 0) lines.push(`broken-${i},Broken,x`);
    else if (i % 50 === 1 && i > 1) lines.push(`person${i - 40}@example.com,Again${i},y`);
    else lines.push(`person${i}@example.com,Person${i},p${i % 7}`);
  }
  return lines.join('\n') + '\n';
}

async function upload(url: string, account: TestAccount, csv: string) {
  const res = await client(url, { authorization: `Bearer ${account.token}`, 'content-type': 'text/csv' })('POST', '/api/contacts/import', { raw: csv });
  expect(res.status).toBe(202);
  return res.body.id as string;
}

async function poll(url: string, account: TestAccount, id: string, until: (body: any) => boolean, timeoutMs = 60_000) {
  const api = client(url, { authorization: `Bearer ${account.token}` });
  const started = Date.now();
  for (;;) {
    const res = await api('GET', `/api/contacts/import/${id}`);
    if (until(res.body)) return res.body;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const COUNTS = ['total_rows', 'processed_rows', 'created', 'updated', 'skipped', 'failed'] as const;

describe('an import survives the end of its server', () => {
  const csv = csvFile();
  let first: ServerProcess;
  let reference: any;
  let steady: TestAccount;
  let db: pg.Client;

  beforeAll(async () => {
    first = await spawnServer(env());
    running.push(first);
    steady = await newAccount(first.url, 'steady');
    const steadyId = await upload(first.url, steady, csv);
    reference = await poll(first.url, steady, steadyId, (b) => b.status === 'completed');
    db = new pg.Client({ connectionString: fileDatabaseUrl() });
    await db.connect();
  }, 60_000);
  afterAll(() => db?.end());

  const count = async (account: TestAccount) =>
    (await db.query('select count(*)::int as n from contacts where account_id = $1', [account.accountId])).rows[0].n;

  it('a full run counts every row once, and stores what it counts', async () => {
    expect(reference).toMatchObject({ total_rows: 60_000, processed_rows: 60_000, failed: 600 });
    expect(reference.created + reference.updated + reference.skipped + reference.failed).toBe(60_000);
    expect(await count(steady)).toBe(reference.created);
  });

  it('resumes after a kill with the counts of an uninterrupted run', async () => {
    const crashed = await newAccount(first.url, 'crashed');
    const crashedId = await upload(first.url, crashed, csv);
    const midway = await poll(first.url, crashed, crashedId, (b) => b.processed_rows > 0);
    expect(midway.status).toBe('running');
    expect(midway.processed_rows).toBeLessThan(60_000);
    first.proc.kill('SIGKILL');
    await first.exited;
    // Two writers, each at its own checkpoint: resuming must skip, per writer, what it wrote.
    const {
      rows: [{ checkpoints }],
    } = await db.query('select checkpoints from contact_imports where id = $1', [crashedId]);
    expect(checkpoints).toHaveLength(2);
    expect(checkpoints[0]).not.toBe(checkpoints[1]);

    const second = await spawnServer(env());
    running.push(second);
    const resumed = await poll(second.url, crashed, crashedId, (b) => b.status === 'completed');
    for (const key of COUNTS) expect(resumed[key], key).toBe(reference[key]);
    expect(second.output()).toContain('resuming unfinished imports');
    expect(await count(crashed)).toBe(reference.created);
    const errors = await client(second.url, { authorization: `Bearer ${crashed.token}` })('GET', `/api/contacts/import/${crashedId}/errors.csv`);
    expect((errors.body as string).trim().split('\r\n')).toHaveLength(601);
    second.proc.kill('SIGTERM');
    await second.exited;
  }, 120_000);

  it('stops at a batch on a graceful shutdown and finishes after restart', async () => {
    const server = await spawnServer(env());
    running.push(server);
    const stopped = await newAccount(server.url, 'stopped');
    const id = await upload(server.url, stopped, csv);
    await poll(server.url, stopped, id, (b) => b.processed_rows > 0);
    server.proc.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const {
      rows: [left],
    } = await db.query('select status, processed_rows from contact_imports where id = $1', [id]);
    expect(left.status).toBe('running');
    expect(left.processed_rows).toBeLessThan(60_000);

    const next = await spawnServer(env());
    running.push(next);
    const finished = await poll(next.url, stopped, id, (b) => b.status === 'completed');
    for (const key of COUNTS) expect(finished[key], key).toBe(reference[key]);
    expect(await count(stopped)).toBe(reference.created);
  }, 120_000);
});

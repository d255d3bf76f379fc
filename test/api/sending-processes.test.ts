import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { client, newAccount, waitFor, type TestAccount } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { fileDatabaseUrl } from '../databases.ts';

const running: ServerProcess[] = [];
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
});
// Every process on the database takes send jobs: each test stops its own before the next.
afterEach(async () => {
  for (const server of running.splice(0)) {
    server.proc.kill('SIGKILL');
    await server.exited;
  }
});
afterAll(() => sink.stop());

const env = (extra: Record<string, string> = {}) => ({
  DATABASE_URL: fileDatabaseUrl(),
  DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-send-')),
  JWT_SECRET: 'sending-test-secret-shared-by-all-processes-0123',
  ALLOW_SIGNUP: 'true',
  SMTP_URL: sink.url,
  SEND_BATCH_SIZE: '10',
  SEND_LEASE_SECONDS: '3',
  ...extra,
});

async function start(extra: Record<string, string> = {}) {
  const server = await spawnServer(env(extra));
  running.push(server);
  return server;
}

async function campaignFor(url: string, account: TestAccount, count: number, label: string) {
  const emails = Array.from({ length: count }, (_, i) => `${label}${i}@workers.example`);
  const api = client(url, { authorization: `Bearer ${account.token}` });
  const imported = await api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
  expect(imported.body.created).toBe(count);
  const { body: c } = await api('POST', '/api/campaigns', {
    body: { name: label, subject: 'Hi', from_email: 'news@shop.example', content: '<p>Hi {{ email }}</p>' },
  });
  return { api, emails, id: c.id as string };
}

async function until(api: ReturnType<typeof client>, id: string, status: string, timeoutMs = 60_000) {
  const started = Date.now();
  for (;;) {
    const res = await api('GET', `/api/campaigns/${id}`);
    if (res.body.status === status) return res.body;
    if (Date.now() - started > timeoutMs) throw new Error(`campaign stayed ${res.body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('sending with several processes', () => {
  it('two workers share one campaign and send no recipient twice', async () => {
    const [api, worker, second] = await Promise.all([
      // Eight send jobs for the campaign; each worker process runs at most four at once.
      start({ SENDLINE_ROLE: 'api', SEND_WORKERS_PER_CAMPAIGN: '8' }),
      start({ SENDLINE_ROLE: 'worker' }),
      start({ SENDLINE_ROLE: 'worker' }),
    ]);
    const account = await newAccount(api.url, 'workers');
    const { api: call, emails, id } = await campaignFor(api.url, account, 300, 'w');
    sink.delayMs = 5;
    try {
      await call('POST', `/api/campaigns/${id}/send`);
      const done = await until(call, id, 'completed');
      expect(done.stats).toMatchObject({ recipients: 300, sent: 300, delivered: 300 });
    } finally {
      sink.delayMs = 0;
    }
    for (const email of emails) expect(sink.to(email), email).toHaveLength(1);
    // Each worker process took part: its log names the campaign it sent.
    expect(worker.output()).toContain(`"campaignId":"${id}","msg":"sending campaign"`);
    expect(second.output()).toContain(`"campaignId":"${id}","msg":"sending campaign"`);
  }, 120_000);

  it("a killed worker's campaign completes after restart, every recipient reached, duplicates bounded by the batch in flight", async () => {
    const first = await start();
    const account = await newAccount(first.url, 'crash');
    const { api: call, emails, id } = await campaignFor(first.url, account, 200, 'k');
    sink.delayMs = 20;
    try {
      await call('POST', `/api/campaigns/${id}/send`);
      const started = Date.now();
      while (emails.filter((e) => sink.to(e).length).length < 30) {
        if (Date.now() - started > 30_000) throw new Error('sending did not start');
        await new Promise((r) => setTimeout(r, 10));
      }
      first.proc.kill('SIGKILL');
      await first.exited;
      const second = await start();
      const after = client(second.url, { authorization: `Bearer ${account.token}` });
      const done = await until(after, id, 'completed');
      expect(done.stats.recipients).toBe(200);
    } finally {
      sink.delayMs = 0;
    }
    const counts = emails.map((e) => sink.to(e).length);
    expect(counts.every((n) => n >= 1)).toBe(true);
    const duplicates = counts.filter((n) => n > 1).length;
    // At most the batches in flight at the kill: batch size 10, up to 4 send jobs per process.
    expect(duplicates).toBeLessThanOrEqual(40);
  }, 120_000);

  it('fails a campaign when the relay keeps failing, and resumes it later', async () => {
    const server = await start({ SMTP_URL: 'smtp://127.0.0.1:9', SEND_FAILURE_SECONDS: '2' });
    const account = await newAccount(server.url, 'relay');
    const { api: call, id } = await campaignFor(server.url, account, 3, 'r');
    await call('POST', `/api/campaigns/${id}/send`);
    const failed = await until(call, id, 'failed', 30_000);
    expect(failed.stats).toMatchObject({ recipients: 3, sent: 0, failed: 0 });
    const resumed = await call('POST', `/api/campaigns/${id}/resume`);
    expect(resumed.body.status).toBe('sending');
  }, 60_000);

  it("restarts do not multiply a campaign's send jobs", async () => {
    const db = new pg.Client({ connectionString: fileDatabaseUrl() });
    await db.connect();
    const sendJobs = async (id: string) =>
      (await db.query<{ n: number }>("select count(*)::int as n from agenda_jobs where name = 'campaigns.send' and data->>'campaignId' = $1", [id])).rows[0].n;
    let server = await start();
    const account = await newAccount(server.url, 'restarts');
    const { api: call, emails, id } = await campaignFor(server.url, account, 1000, 's');
    sink.delayMs = 30;
    try {
      await call('POST', `/api/campaigns/${id}/send`);
      // Killed twice while sending: each restart finds the campaign's jobs already there.
      for (let restart = 1; restart <= 2; restart++) {
        await waitFor(() => emails.filter((e) => sink.to(e).length).length >= restart * 40, 30_000);
        server.proc.kill('SIGKILL');
        await server.exited;
        server = await start();
        await waitFor(async () => (await client(server.url, { authorization: `Bearer ${account.token}` })('GET', `/api/campaigns/${id}`)).status === 200);
        // Past the point where the restarted process has looked at every sending campaign.
        await new Promise((r) => setTimeout(r, 2500));
        expect(await sendJobs(id)).toBe(2);
      }
      await until(client(server.url, { authorization: `Bearer ${account.token}` }), id, 'completed');
      expect(emails.every((e) => sink.to(e).length >= 1)).toBe(true);
      // Finished send jobs do not stay behind.
      await waitFor(async () => (await sendJobs(id)) === 0, 5000);
    } finally {
      sink.delayMs = 0;
      await db.end();
    }
  }, 120_000);

  it('starts a scheduled campaign once, with two processes checking the schedule', async () => {
    // A lease long enough that a slow first batch is not claimed again: the schedule is under test.
    const [first, second] = await Promise.all([start({ SEND_LEASE_SECONDS: '30' }), start({ SEND_LEASE_SECONDS: '30' })]);
    const account = await newAccount(first.url, 'scheduled');
    const { api: call, emails, id } = await campaignFor(first.url, account, 20, 'sch');
    const at = new Date(Date.now() + 2000);
    await call('POST', `/api/campaigns/${id}/schedule`, { body: { scheduled_at: at.toISOString() } });
    const done = await until(client(second.url, { authorization: `Bearer ${account.token}` }), id, 'completed', 30_000);
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(at.getTime());
    expect(Date.parse(done.started_at) - at.getTime()).toBeLessThan(5000);
    expect(done.stats).toMatchObject({ recipients: 20, sent: 20 });
    for (const email of emails) expect(sink.to(email), email).toHaveLength(1);
    const started = await call('GET', '/api/events?type=campaign.started');
    expect(started.body.data.filter((e: { data: { campaign_id: string } }) => e.data.campaign_id === id)).toHaveLength(1);
  }, 60_000);
});

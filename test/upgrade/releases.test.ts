/**
 * Every release's fixture (test/fixtures/releases/<version>/, written by that release through its
 * API: `npm run fixture:release`) is restored into a fresh database and served by this code:
 * every row is still there and reads the same through the API, the credentials of that release
 * still work, and so do the links it mailed and the webhook secrets it handed out.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restoreDatabase } from '../../server/db/pg-tools.ts';
import { migrations } from '../../server/db/migrations/index.ts';
import { startSendline, type Sendline } from '../../server/start.ts';
import { client, type Client } from '../client.ts';
import { freshDatabase } from '../databases.ts';
import { waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { verifyStandardWebhook, WebhookReceiver } from '../webhook-receiver.ts';
import { snapshotAccount } from './snapshot.ts';

const RELEASES = fileURLToPath(new URL('../fixtures/releases', import.meta.url));
const HUMAN_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

/** Rows that change by being read (sessions, rate-limit windows) or belong to the job queue. */
const COUNTED_ELSEWHERE = new Set(['sessions', 'rate_limit_counters', 'agenda_jobs', 'agenda_logs', 'mikro_orm_migrations']);

/** Fields an API answer may change without any row changing: the time of the last login. */
function withoutLogins(snapshot: Record<string, any>): Record<string, any> {
  return { ...snapshot, users: snapshot.users.map(({ last_login_at: _last, ...user }: any) => user) };
}

const releases = readdirSync(RELEASES).sort();

describe.each(releases)('a database written by %s', (release) => {
  const dir = path.join(RELEASES, release);
  const fixture = JSON.parse(readFileSync(path.join(dir, 'fixture.json'), 'utf8'));
  const recorded = JSON.parse(readFileSync(path.join(dir, 'api.json'), 'utf8'));
  let databaseUrl: string;
  let dataDir: string;
  let sendline: Sendline;
  let receiver: WebhookReceiver;
  let db: pg.Client;
  const sql = (text: string, params: unknown[] = []) => db.query(text, params).then((r) => r.rows);
  const hit = (p: string, init: RequestInit = {}) =>
    fetch(sendline.url + p, { redirect: 'manual', ...init, headers: { 'user-agent': HUMAN_AGENT, ...(init.headers ?? {}) } });
  const start = (env: Record<string, string> = {}) =>
    startSendline({
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      PUBLIC_URL: fixture.public_url,
      VALIDATE_RESPONSES: 'true',
      LOG_LEVEL: 'silent',
      TRACKING_FLUSH_MS: '50',
      ...env,
    });
  const login = async (who: { email: string; password: string }): Promise<Client> => {
    const res = await client(sendline.url)('POST', '/api/auth/login', { body: who });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return client(sendline.url, { authorization: `Bearer ${res.body.token}` });
  };

  beforeAll(async () => {
    databaseUrl = await freshDatabase(`release_${release.replace(/\W/g, '_')}`);
    await restoreDatabase(databaseUrl, path.join(dir, 'database.sql'));
    // The release's DATA_DIR secrets, and no JWT_SECRET: the server reads them as it did then.
    dataDir = mkdtempSync(path.join(tmpdir(), 'sendline-upgrade-'));
    cpSync(path.join(dir, 'data-dir'), dataDir, { recursive: true });
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    receiver = await new WebhookReceiver().start();
    // An API process first: it sends nothing and delivers nothing, so the rows stay as they were.
    sendline = await start({ SENDLINE_ROLE: 'api', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  });
  afterAll(async () => {
    await sendline?.stop();
    await receiver?.stop();
    await db?.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('applies every migration of this code on top of those of the release', async () => {
    const applied = (await sql('select name from mikro_orm_migrations order by id')).map((r) => r.name);
    expect(applied.slice(0, fixture.migrations.length)).toEqual(fixture.migrations);
    expect(applied).toEqual(migrations.map((m) => m.name));
    const health = await client(sendline.url)('GET', '/healthz');
    expect(health.body).toMatchObject({ status: 'ok', migration: applied.at(-1), migrations: applied.length });
  });

  it('keeps every row of every table', async () => {
    for (const [table, count] of Object.entries(fixture.counts as Record<string, number>)) {
      if (COUNTED_ELSEWHERE.has(table)) continue;
      const [row] = await sql(`select count(*)::int as n from "${table}"`);
      expect(row.n, table).toBe(count);
    }
  });

  it('carries the contact counts by status over exactly, and the overview reads them', async () => {
    const stored = await sql('select account_id, status, count(*)::int as n from contacts group by 1, 2 order by 1, 2');
    expect(stored.length).toBeGreaterThan(0);
    const counted = await sql('select account_id, status, sum(count)::int as n from contact_status_counts group by 1, 2 having sum(count) <> 0 order by 1, 2');
    expect(counted).toEqual(stored);
    const owner = await login(fixture.owner);
    const { body: overview } = await owner('GET', '/api/analytics/overview');
    const ownerAccount = (await owner('GET', '/api/auth/me')).body.account.id;
    const own = stored.filter((row) => row.account_id === ownerAccount);
    expect(overview.contacts.total).toBe(own.reduce((sum, row) => sum + row.n, 0));
    for (const row of own) expect(overview.contacts[row.status], row.status).toBe(row.n);
  });

  it('puts the contacts that release suppressed on the suppression list', async () => {
    const suppressed = await sql("select account_id, lower(email) as email, status from contacts where status <> 'subscribed' order by 1, 2");
    expect(suppressed.length).toBeGreaterThan(0);
    const listed = await sql("select account_id, lower(email) as email, reason from suppressions where source = 'contact_status' order by 1, 2");
    expect(listed).toEqual(suppressed.map((r) => ({ account_id: r.account_id, email: r.email, reason: r.status })));
  });

  it('logs the owner in with the password of then, and answers what that release answered', async () => {
    const owner = await login(fixture.owner);
    expect(withoutLogins(await snapshotAccount(owner))).toMatchObject(withoutLogins(recorded.account));
    const other = await login(fixture.other);
    expect(withoutLogins(await snapshotAccount(other))).toMatchObject(withoutLogins(recorded.other));
    // Still two tenants: the other account does not see the first one's rows.
    expect((await other('GET', `/api/campaigns/${fixture.campaigns.completed}`)).status).toBe(404);
  });

  it('authenticates the API keys of then, with their scopes', async () => {
    const write = client(sendline.url, { 'x-api-key': fixture.api_keys.write });
    const me = await write('GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.body.account_id).toBe(fixture.account_id);
    expect((await client(sendline.url, { authorization: `Bearer ${fixture.api_keys.write}` })('GET', '/api/contacts?limit=1')).status).toBe(200);
    const read = client(sendline.url, { 'x-api-key': fixture.api_keys.read });
    expect((await read('GET', '/api/contacts?limit=1')).status).toBe(200);
    expect((await read('POST', '/api/contacts', { body: { email: 'nope@fixture.example' } })).body.code).toBe('insufficient_scope');
    expect((await client(sendline.url, { 'x-api-key': fixture.api_keys.write.slice(0, -2) + 'xx' })('GET', '/api/auth/me')).status).toBe(401);
  });

  it('follows a click link mailed by that release to its target and records the click', async () => {
    const before = (await sql('select count(*)::int as n from clicks where message_id = $1', [fixture.links.message_id]))[0].n;
    const res = await hit(fixture.links.click.url);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(fixture.links.click.target);
    await waitFor(async () => (await sql('select count(*)::int as n from clicks where message_id = $1', [fixture.links.message_id]))[0].n === before + 1);
  });

  it('records an open from a pixel mailed by that release', async () => {
    const before = (await sql('select count(*)::int as n from opens where message_id = $1', [fixture.links.message_id]))[0].n;
    const res = await hit(fixture.links.pixel);
    expect(res.headers.get('content-type')).toBe('image/gif');
    await waitFor(async () => (await sql('select count(*)::int as n from opens where message_id = $1', [fixture.links.message_id]))[0].n === before + 1);
  });

  it('unsubscribes with a link mailed by that release', async () => {
    const api = client(sendline.url, { 'x-api-key': fixture.api_keys.write });
    const contact = async () => (await api('GET', `/api/contacts?email=${encodeURIComponent(fixture.links.email)}`)).body.data[0];
    expect((await contact()).status).toBe('subscribed');
    const page = await hit(fixture.links.unsubscribe);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('List-Unsubscribe');
    const res = await hit(fixture.links.unsubscribe, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect((await contact()).status).toBe('unsubscribed');
  });

  it('signs webhooks with the secret that release handed out', async () => {
    const api = client(sendline.url, { 'x-api-key': fixture.api_keys.write });
    const { body: hook } = await api('GET', `/api/webhooks/${fixture.webhook.id}`);
    const put = await api('PUT', `/api/webhooks/${hook.id}`, { body: { url: receiver.url, events: hook.events, description: hook.description, active: true } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect((await api('POST', `/api/webhooks/${hook.id}/test`)).body).toMatchObject({ success: true, status_code: 200 });
    const [delivery] = receiver.received;
    expect(verifyStandardWebhook(fixture.webhook.secret, delivery.headers, delivery.body)).toBe(true);
  });

  it('finishes the campaign that release was sending, sending nothing twice, and leaves the others as they were', async () => {
    await sendline.stop();
    const sink = await new SmtpSink().start();
    try {
      sendline = await start({ SMTP_URL: sink.url });
      const api = client(sendline.url, { 'x-api-key': fixture.api_keys.write });
      const campaign = await waitFor(async () => {
        const { body } = await api('GET', `/api/campaigns/${fixture.campaigns.sending}`);
        return body.status === 'completed' && body;
      });
      const recipients = (await sql('select email from messages where campaign_id = $1 order by email', [fixture.campaigns.sending])).map((r) => r.email);
      const mailedNow = sink.received.map((r) => r.to).sort();
      expect(mailedNow).toEqual(recipients.filter((email) => !fixture.sending_sent_before_upgrade.includes(email)));
      expect(campaign.stats).toMatchObject({ recipients: recipients.length, sent: recipients.length });
      const statuses = Object.fromEntries(
        await Promise.all(
          Object.entries(fixture.campaigns as Record<string, string>).map(async ([state, id]) => [
            state,
            (await api('GET', `/api/campaigns/${id}`)).body.status,
          ]),
        ),
      );
      expect(statuses).toEqual({
        completed: 'completed',
        draft: 'draft',
        scheduled: 'scheduled',
        cancelled: 'cancelled',
        failed: 'failed',
        paused: 'paused',
        sending: 'completed',
      });
    } finally {
      await sendline.stop();
      await sink.stop();
    }
  });
});

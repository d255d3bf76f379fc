/**
 * Writes the upgrade fixture of the release in package.json to test/fixtures/releases/<version>/:
 * this code, on an embedded PostgreSQL of its own, filled through its HTTP API with every kind of
 * row, then dumped as plain SQL (`database.sql`), with the secrets its DATA_DIR held
 * (`data-dir/`), what the API answered for the account (`api.json`) and what the upgrade test
 * needs to know (`fixture.json`: credentials, links from the mails, counts).
 *
 *   npm run fixture:release [-- --force]
 *
 * Run it on the commit of the release, once: a fixture is the release's own record, so an
 * existing one is not rewritten without --force (and never by a later commit).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { secretsOf } from '../../server/commands/backup.ts';
import { loadConfig } from '../../server/config.ts';
import { startEmbeddedDatabase } from '../../server/db/embedded.ts';
import { dumpDatabase } from '../../server/db/pg-tools.ts';
import { createLogger } from '../../server/logger.ts';
import { startSendline, type Sendline } from '../../server/start.ts';
import { client, type Client } from '../client.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';
import { snapshotAccount } from './snapshot.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
const OUT = path.join(ROOT, 'test/fixtures/releases', VERSION);
const PUBLIC_URL = 'https://mail.sendline.test';
const HUMAN_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36';

const owner = { email: 'owner@fixture.example', password: 'owner password of 0.1.0' };
const other = { email: 'other@fixture.example', password: 'other password of 0.1.0' };

const started = Date.now();
const step = (what: string) => console.error(`${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`);

async function waitFor<T>(what: string, check: () => Promise<T | false | undefined>, timeoutMs = 30_000): Promise<T> {
  step(`waiting for ${what}`);
  const since = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - since > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ok(res: Promise<{ status: number; body: any }>, ...expected: number[]): Promise<any> {
  const answer = await res;
  if (!expected.includes(answer.status)) throw new Error(`unexpected ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

async function login(url: string, who: { email: string; password: string }): Promise<Client> {
  const body = await ok(client(url)('POST', '/api/auth/login', { body: who }), 200);
  return client(url, { authorization: `Bearer ${body.token}` });
}

const baseEnv = (dataDir: string, smtpUrl: string): Record<string, string> => ({
  DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  PUBLIC_URL,
  SMTP_URL: smtpUrl,
  ADMIN_EMAIL: owner.email,
  ADMIN_PASSWORD: owner.password,
  ALLOW_SIGNUP: 'true',
  LOG_LEVEL: 'silent',
  TRACKING_FLUSH_MS: '50',
  TRACKING_MACHINE_OPEN_SECONDS: '0',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.1,0.1',
  WEBHOOK_TIMEOUT_MS: '1000',
  // Slow enough to pause a campaign, and to stop one, part-way.
  SEND_RATE_PER_SECOND: '10',
  SEND_BATCH_SIZE: '1',
  SEND_THREADS: '1',
  SEND_FAILURE_SECONDS: '1',
});

interface Mailed {
  messageId: string;
  email: string;
  pixel: string;
  clicks: { url: string; target: string }[];
  unsubscribe: string;
}

/** The tracking links of each mail the sink received with `subject`, as local paths. */
function mailedLinks(sink: SmtpSink, subject: string): Mailed[] {
  const local = (url: string) => url.replace(PUBLIC_URL, '');
  return sink.received
    .filter((r) => r.mail.subject === subject)
    .map((r) => {
      const html = String(r.mail.html);
      const clicks = [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => local(m[1].replace(/&amp;/g, '&')));
      return {
        messageId: r.mail.headers.get('x-sendline-message') as string,
        email: r.to,
        pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
        clicks: clicks.map((url) => ({ url, target: '' })),
        unsubscribe: local(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]),
      };
    });
}

async function fill(sendline: Sendline, sink: SmtpSink, hooks: { ok: WebhookReceiver; failing: WebhookReceiver }) {
  const url = sendline.url;
  const session = await login(url, owner);
  const me = await ok(session('GET', '/api/auth/me'), 200);
  const hit = (p: string, init: RequestInit = {}) =>
    fetch(url + p, { redirect: 'manual', ...init, headers: { 'user-agent': HUMAN_AGENT, ...(init.headers ?? {}) } });

  // A second account, with rows of its own that the first must never see.
  await ok(client(url)('POST', '/api/auth/register', { body: { ...other, name: 'Other', account_name: 'Other Ltd' } }), 201);
  const otherSession = await login(url, other);
  await ok(otherSession('POST', '/api/contacts', { body: { email: 'only-other@fixture.example', tags: ['newsletter'] } }), 201);

  // Users and API keys.
  await ok(session('POST', '/api/users', { body: { email: 'member@fixture.example', password: 'member password 0.1.0', name: 'Member' } }), 201);
  await ok(
    session('POST', '/api/users', { body: { email: 'admin@fixture.example', password: 'admin password 0.1.0', name: 'Admin Two', role: 'admin' } }),
    201,
  );
  const writeKey = await ok(session('POST', '/api/api-keys', { body: { name: 'backend', scopes: ['read', 'write'], rate_limit_per_minute: 6000 } }), 201);
  const readKey = await ok(session('POST', '/api/api-keys', { body: { name: 'reporting', scopes: ['read'], allowed_ips: ['127.0.0.0/8'] } }), 201);
  const api = client(url, { 'x-api-key': writeKey.key });

  // Webhooks first, so that everything after is delivered (or fails to be).
  const hook = await ok(api('POST', '/api/webhooks', { body: { url: hooks.ok.url, events: ['*'], description: 'everything' } }), 201);
  const failingHook = await ok(api('POST', '/api/webhooks', { body: { url: hooks.failing.url, events: ['contact.created', 'campaign.*'] } }), 201);

  // Contacts: attributes, tags, every status.
  const newsletter = ['ada', 'grace', 'alan', 'edsger', 'barbara', 'donald'].map((name) => `${name}@fixture.example`);
  for (const [i, email] of newsletter.entries()) {
    await ok(
      api('POST', '/api/contacts', {
        body: {
          email,
          first_name: email.split('@')[0],
          last_name: 'Fixture',
          tags: ['newsletter', i % 2 ? 'odd' : 'even'],
          attributes: { plan: i % 2 ? 'pro' : 'free', seats: i + 1, flags: { beta: i === 0 } },
        },
      }),
      201,
    );
  }
  const quiet = await ok(
    api('POST', '/api/contacts', { body: { email: 'Quiet@Fixture.Example', status: 'unsubscribed', attributes: { source: 'manual' } } }),
    201,
  );
  await ok(api('PATCH', `/api/contacts/${quiet.id}`, { body: { first_name: 'Quiet' } }), 200);
  const gone = await ok(api('POST', '/api/contacts', { body: { email: 'gone@fixture.example', tags: ['newsletter'] } }), 201);

  // Imports: JSON with failed rows, a CSV with failed rows, a CSV that cannot be read on.
  await ok(
    api('POST', '/api/contacts/import', {
      body: {
        tags: ['imported'],
        contacts: [
          { email: 'json-1@fixture.example', attributes: { plan: 'team' } },
          { email: 'not an email' },
          { email: 'json-2@fixture.example', status: 'vip' },
          { email: 'json-3@fixture.example', first_name: 'Three' },
        ],
      },
    }),
    202,
  );
  const csv =
    'email,first_name,tags,company\r\ncsv-1@fixture.example,Csv,a;b,Acme\r\n,NoEmail,,\r\ncsv-2@fixture.example,"Two, Quoted",b,"Line\nbreak"\r\nbroken@,x,,\r\ncsv-1@fixture.example,Again,,\r\n';
  const csvImport = await ok(api('POST', '/api/contacts/import?tags=csv', { raw: csv, headers: { 'content-type': 'text/csv' } }), 202);
  const badImport = await ok(
    api('POST', '/api/contacts/import', {
      raw: 'email,first_name\ncsv-3@fixture.example,Three\ncsv-4@fixture.example,"never closed\n',
      headers: { 'content-type': 'text/csv' },
    }),
    202,
  );
  for (const id of [csvImport.id, badImport.id]) {
    await waitFor(`import ${id}`, async () => ['completed', 'failed'].includes((await api('GET', `/api/contacts/import/${id}`)).body.status));
  }

  // A completed campaign with every kind of tracking.
  sink.rejectHard.add('barbara@fixture.example');
  const content =
    '<p>Hello {{ first_name | default: "there" }}, your plan is {{ plan }}.</p><a href="https://shop.example/a?x=1&y=2">Shop</a> <a href="https://shop.example/b">Blog</a>';
  const newsletterCampaign = await ok(
    api('POST', '/api/campaigns', {
      body: {
        name: 'Newsletter',
        subject: 'News of 0.1.0',
        from_email: 'news@shop.example',
        from_name: 'Shop',
        content,
        audience: { tags_any: ['newsletter'], exclude_tags: ['excluded'] },
      },
    }),
    201,
  );
  await ok(api('POST', `/api/campaigns/${newsletterCampaign.id}/send`), 200);
  await waitFor('the newsletter', async () => (await api('GET', `/api/campaigns/${newsletterCampaign.id}`)).body.status === 'completed');
  const mailed = new Map(mailedLinks(sink, 'News of 0.1.0').map((m) => [m.email, m]));
  const [ada, grace, alan, edsger, , donald] = newsletter.map((e) => mailed.get(e)!);
  await hit(ada.pixel);
  await hit(ada.pixel);
  await hit(grace.pixel, { headers: { 'user-agent': 'Mozilla/5.0' } });
  for (const m of [ada, alan]) {
    for (const link of m.clicks) {
      const res = await hit(link.url);
      link.target = res.headers.get('location') ?? '';
    }
  }
  const unsubscribed = await hit(edsger.unsubscribe, {
    method: 'POST',
    body: 'List-Unsubscribe=One-Click',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (unsubscribed.status !== 200) throw new Error(`unsubscribe answered ${unsubscribed.status}`);
  await ok(api('POST', '/api/tracking/bounces', { body: { message_id: donald.messageId, type: 'complaint', reason: 'abuse report' } }), 201);
  await ok(api('POST', '/api/tracking/bounces', { body: { email: 'gone@fixture.example', type: 'soft', reason: 'mailbox full' } }), 201);
  await waitFor('the clicks', async () => (await api('GET', '/api/tracking/clicks')).body.data.length === 4);

  // Conversions and payments, attributed by click token, by campaign, by the last click.
  await ok(
    api('POST', '/api/conversions', {
      body: {
        email: ada.email,
        click_token: ada.clicks[0].url,
        type: 'purchase',
        value: '49.90',
        currency: 'EUR',
        external_id: 'order-1',
        affiliate_id: 'aff-7',
      },
    }),
    201,
  );
  await ok(api('POST', '/api/conversions', { body: { email: 'alan@fixture.example', type: 'signup' } }), 201);
  await ok(api('POST', '/api/conversions', { body: { email: 'json-1@fixture.example', campaign_id: newsletterCampaign.id, type: 'trial' } }), 201);
  await ok(api('POST', '/api/payments', { body: { email: 'ada@fixture.example', amount: '1234.56', currency: 'USD', external_id: 'pay-1' } }), 201);

  await ok(api('DELETE', `/api/contacts/${gone.id}`), 200, 204);

  // Campaigns in the other states.
  const campaign = (name: string, tag: string) =>
    ok(
      api('POST', '/api/campaigns', {
        body: {
          name,
          subject: `${name} of 0.1.0`,
          from_email: 'news@shop.example',
          content: `<p>${name} for {{ email }}</p><a href="https://shop.example/${tag}">Go</a>`,
          audience: { tags_any: [tag] },
        },
      }),
      201,
    );
  const draft = await campaign('Draft', 'newsletter');
  const scheduled = await campaign('Scheduled', 'newsletter');
  await ok(api('POST', `/api/campaigns/${scheduled.id}/schedule`, { body: { scheduled_at: '2099-01-01T09:00:00Z' } }), 200);
  const cancelled = await campaign('Cancelled', 'newsletter');
  await ok(api('POST', `/api/campaigns/${cancelled.id}/schedule`, { body: { scheduled_at: '2099-01-01T09:00:00Z' } }), 200);
  await ok(api('POST', `/api/campaigns/${cancelled.id}/cancel`), 200);

  const bulk = Array.from({ length: 40 }, (_, i) => ({ email: `bulk-${String(i).padStart(2, '0')}@fixture.example`, first_name: `Bulk ${i}` }));
  await ok(api('POST', '/api/contacts/import', { body: { tags: ['bulk'], contacts: bulk } }), 202);

  // The relay is down for this one until the campaign fails.
  const port = Number(new URL(sink.url).port);
  step('stopping the relay');
  await sink.stop();
  const failed = await campaign('Failed', 'even');
  await ok(api('POST', `/api/campaigns/${failed.id}/send`), 200);
  await waitFor('the failed campaign', async () => (await api('GET', `/api/campaigns/${failed.id}`)).body.status === 'failed');
  await sink.start(port);

  const paused = await campaign('Paused', 'bulk');
  await ok(api('POST', `/api/campaigns/${paused.id}/send`), 200);
  await waitFor('a message of the paused campaign', async () => (await api('GET', `/api/campaigns/${paused.id}`)).body.stats.sent >= 2);
  await ok(api('POST', `/api/campaigns/${paused.id}/pause`), 200);
  await waitFor('the paused campaign to settle', async () => {
    const { rows } = await sendline.pool.query("select count(*)::int as n from messages where campaign_id = $1 and status = 'sending'", [paused.id]);
    return rows[0].n === 0;
  });

  await waitFor('webhook deliveries', async () => {
    for (const id of [hook.id, failingHook.id]) {
      const pending = await api('GET', `/api/webhooks/${id}/deliveries?status=pending`);
      if (pending.body.data.length) return false;
    }
    return true;
  });

  // Stopped part-way: the next version resumes it.
  const sending = await campaign('Sending', 'bulk');
  await ok(api('POST', `/api/campaigns/${sending.id}/send`), 200);
  await waitFor('a message of the sending campaign', async () => (await api('GET', `/api/campaigns/${sending.id}`)).body.stats.sent >= 2);

  return {
    account_id: me.account_id,
    owner: { ...owner, user_id: me.id },
    other,
    api_keys: { write: writeKey.key, read: readKey.key },
    webhook: { id: hook.id, secret: hook.secret },
    campaigns: {
      completed: newsletterCampaign.id,
      draft: draft.id,
      scheduled: scheduled.id,
      cancelled: cancelled.id,
      failed: failed.id,
      paused: paused.id,
      sending: sending.id,
    },
    links: {
      message_id: ada.messageId,
      email: ada.email,
      pixel: ada.pixel,
      click: ada.clicks[0],
      unsubscribe: ada.unsubscribe,
    },
  };
}

async function main() {
  if (existsSync(OUT) && !process.argv.includes('--force')) {
    console.error(`${path.relative(ROOT, OUT)} exists: a release's fixture is written once, by that release (--force to write it again).`);
    process.exitCode = 2;
    return;
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sendline-fixture-'));
  const log = createLogger('warn');
  const sink = await new SmtpSink().start();
  const hooks = { ok: await new WebhookReceiver().start(), failing: await new WebhookReceiver().start() };
  hooks.failing.status = 500;
  const env = baseEnv(dataDir, sink.url);
  // The database outlives the servers: the release's server joins it, and it is dumped once they stopped.
  const database = await startEmbeddedDatabase(dataDir, loadConfig(env).embeddedDatabasePassword, log);
  try {
    const sendline = await startSendline(env);
    const facts = await fill(sendline, sink, hooks);
    step('stopping');
    await sendline.stop();
    step('stopped');

    // What the API answers, read by a server that sends nothing.
    const reader = await startSendline({ ...env, SENDLINE_ROLE: 'api' });
    step('reading the API');
    const snapshot = await snapshotAccount(await login(reader.url, owner));
    const otherSnapshot = await snapshotAccount(await login(reader.url, other));
    await reader.stop();
    step('dumping');

    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    const { rows: tables } = await db.query("select tablename from pg_tables where schemaname = 'public' order by tablename");
    const counts: Record<string, number> = {};
    for (const { tablename } of tables) {
      counts[tablename] = (await db.query(`select count(*)::int as n from "${tablename}"`)).rows[0].n;
    }
    const migrations = (await db.query('select name from mikro_orm_migrations order by id')).rows.map((r) => r.name);
    const sentBeforeStop = (
      await db.query("select email from messages where campaign_id = $1 and status in ('sent', 'delivered') order by email", [facts.campaigns.sending])
    ).rows.map((r) => r.email);
    const inFlight = (await db.query("select count(*)::int as n from messages where status = 'sending'")).rows[0].n;
    await db.end();
    if (inFlight) throw new Error(`${inFlight} messages were left claimed; run again`);

    rmSync(OUT, { recursive: true, force: true });
    mkdirSync(path.join(OUT, 'data-dir'), { recursive: true });
    await dumpDatabase(database.url, path.join(OUT, 'database.sql'));
    // The secrets a backup would keep (the embedded cluster's password stays with its cluster).
    for (const file of secretsOf(dataDir)) copyFileSync(path.join(dataDir, file), path.join(OUT, 'data-dir', file));
    const fixture = {
      release: VERSION,
      written_at: new Date().toISOString(),
      public_url: PUBLIC_URL,
      ...facts,
      sending_sent_before_upgrade: sentBeforeStop,
      migrations,
      counts,
    };
    writeFileSync(path.join(OUT, 'fixture.json'), JSON.stringify(fixture, null, 2) + '\n');
    writeFileSync(path.join(OUT, 'api.json'), JSON.stringify({ account: snapshot, other: otherSnapshot }, null, 1) + '\n');
    console.log(
      `wrote ${path.relative(ROOT, OUT)}: ${Object.entries(counts)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}`,
    );
  } catch (error) {
    // Stopping the database below ends any server still on it noisily: say why first.
    console.error(error);
    process.exitCode = 1;
  } finally {
    step('cleaning up');
    await database.stop();
    await sink.stop();
    await hooks.ok.stop();
    await hooks.failing.stop();
    rmSync(dataDir, { recursive: true, force: true });
    step('done');
  }
}

await main();
// Sockets the stopped servers' clients keep would hold the process for minutes: the work is done.
process.exit();

import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create, extract } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSendline, type Sendline } from '../../server/start.ts';
import { restoreDatabase } from '../../server/db/pg-tools.ts';
import { freshDatabase, withClient } from '../databases.ts';
import { client, newAccount, type TestAccount, waitFor } from '../helpers.ts';
import { runSendline } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { snapshotAccount } from '../upgrade/snapshot.ts';
import { verifyStandardWebhook, WebhookReceiver } from '../webhook-receiver.ts';

const PUBLIC_URL = 'https://mail.backup.test';
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-backup-test-'));
  dirs.push(dir);
  return dir;
};

const serverEnv = (env: Record<string, string>) => ({
  PORT: '0',
  HOST: '127.0.0.1',
  PUBLIC_URL,
  ALLOW_SIGNUP: 'true',
  LOG_LEVEL: 'silent',
  TRACKING_FLUSH_MS: '50',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  ...env,
});

describe('backup and restore', () => {
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let source: { url: string; dataDir: string };
  let account: TestAccount;
  let hook: { id: string; secret: string };
  let links: { click: string; pixel: string; unsubscribe: string; email: string };
  let before: Record<string, unknown>;
  const backupFile = () => path.join(dirs[0], 'sendline.backup');
  let restored: Sendline | null = null;

  beforeAll(async () => {
    tempDir();
    sink = await new SmtpSink().start();
    receiver = await new WebhookReceiver().start();
    source = { url: await freshDatabase('backup_source'), dataDir: tempDir() };
    // No JWT_SECRET: the server generates DATA_DIR/jwt-secret, which the backup must carry.
    const server = await startSendline(serverEnv({ DATABASE_URL: source.url, DATA_DIR: source.dataDir, SMTP_URL: sink.url }));
    try {
      account = await newAccount(server.url, 'backup');
      hook = (await account.api('POST', '/api/webhooks', { body: { url: receiver.url, events: ['contact.*'] } })).body;
      await account.api('POST', '/api/contacts', { body: { email: 'kept@example.com', first_name: 'Kept', tags: ['news'], attributes: { plan: 'pro' } } });
      const { body: campaign } = await account.api('POST', '/api/campaigns', {
        body: {
          name: 'Kept',
          subject: 'Backed up',
          from_email: 'news@shop.example',
          content: '<a href="https://shop.example/kept">Shop</a>',
          audience: { tags_any: ['news'] },
        },
      });
      await account.api('POST', `/api/campaigns/${campaign.id}/send`);
      await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
      const html = String(sink.received[0].mail.html);
      const local = (url: string) => url.replace(PUBLIC_URL, '');
      links = {
        email: 'kept@example.com',
        click: local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]),
        pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
        unsubscribe: local(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]),
      };
      await waitFor(async () => (await account.api('GET', `/api/webhooks/${hook.id}/deliveries?status=pending`)).body.data.length === 0);
      before = await snapshotAccount(account.api);
    } finally {
      await server.stop();
    }
  });
  afterAll(async () => {
    await restored?.stop();
    await sink.stop();
    await receiver.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the database and the DATA_DIR secrets into one file only its owner reads', async () => {
    const res = await runSendline(['backup', backupFile()], { DATABASE_URL: source.url, DATA_DIR: source.dataDir });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("DATA_DIR's jwt-secret");
    expect(statSync(backupFile()).mode & 0o777).toBe(0o600);
  });

  it('restores into the embedded database of a new DATA_DIR, which then serves the same data and links', async () => {
    const dataDir = tempDir();
    const res = await runSendline(['restore', backupFile()], { DATA_DIR: dataDir });
    expect(res.code, res.stderr).toBe(0);
    // JWT_SECRET is not set: nothing to warn of.
    expect(res.stderr).not.toContain('JWT_SECRET');
    expect(readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8')).toBe(readFileSync(path.join(source.dataDir, 'jwt-secret'), 'utf8'));

    restored = await startSendline(serverEnv({ DATA_DIR: dataDir, SMTP_URL: sink.url }));
    // The session of before the backup still works: same sessions, same JWT secret.
    const api = client(restored.url, { authorization: `Bearer ${account.token}` });
    expect(await snapshotAccount(api)).toEqual(before);

    const hit = (p: string, init: RequestInit = {}) => fetch(restored!.url + p, { redirect: 'manual', ...init });
    const click = await hit(links.click);
    expect(click.status).toBe(302);
    expect(click.headers.get('location')).toBe('https://shop.example/kept');
    expect((await hit(links.pixel)).headers.get('content-type')).toBe('image/gif');
    await waitFor(
      async () => (await api('GET', '/api/tracking/clicks')).body.data.length === 1 && (await api('GET', '/api/tracking/opens')).body.data.length === 2,
    );
    const unsubscribe = await hit(links.unsubscribe, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(unsubscribe.status).toBe(200);
    const contacts = await api('GET', `/api/contacts?email=${encodeURIComponent(links.email)}`);
    expect(contacts.body.data?.[0]?.status, JSON.stringify(contacts.body)).toBe('unsubscribed');

    const tested = await api('POST', `/api/webhooks/${hook.id}/test`);
    expect(tested.body).toMatchObject({ success: true });
    expect(verifyStandardWebhook(hook.secret, receiver.received.at(-1)!.headers, receiver.received.at(-1)!.body)).toBe(true);
    await restored.stop();
    restored = null;

    // The same backup again: refused over data, unless told to replace it.
    const again = await runSendline(['restore', backupFile()], { DATA_DIR: dataDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('The database is not empty');
    expect((await runSendline(['restore', backupFile(), '--replace'], { DATA_DIR: dataDir })).code).toBe(0);
  }, 120_000);

  it('keeps the database password off the command line and out of a failure', async () => {
    const url = await freshDatabase('backup_broken');
    const password = decodeURIComponent(new URL(url).password);
    const broken = path.join(tempDir(), 'broken.sql');
    writeFileSync(broken, 'create table kept (id int);\nthis is not sql;\n');
    const failure = await restoreDatabase(url, broken).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failure).toMatch(/^psql failed: .*syntax error/s);
    expect(failure).not.toContain(password);
    // One transaction: the statement before the error is not kept either.
    expect((await withClient(url, (db) => db.query("select to_regclass('public.kept') as t"))).rows[0].t).toBeNull();
  });

  it('refuses to overwrite a different secret in DATA_DIR, and a file that is no backup', async () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, 'jwt-secret'), 'another-deployment-secret-0123456789abcdef\n');
    const env = { DATA_DIR: dataDir, DATABASE_URL: await freshDatabase('backup_other') };
    const res = await runSendline(['restore', backupFile()], env);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('DATA_DIR already holds a different jwt-secret; --replace overwrites it');
    const notBackup = await runSendline(['restore', path.join(dataDir, 'jwt-secret')], env);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toMatch(/^restore failed: /);
    expect((await runSendline(['restore', path.join(dataDir, 'missing')], env)).stderr).toContain('does not exist');
  });

  it('refuses a backup whose manifest names files outside DATA_DIR or that it does not hold', async () => {
    const dataDir = tempDir();
    for (const secrets of [['../outside'], ['pg-password'], ['jwt-secret', 'missing']]) {
      const staging = tempDir();
      await extract({ file: backupFile(), cwd: staging });
      const manifest = JSON.parse(readFileSync(path.join(staging, 'sendline-backup.json'), 'utf8'));
      writeFileSync(path.join(staging, 'sendline-backup.json'), JSON.stringify({ ...manifest, secrets }));
      writeFileSync(path.join(staging, 'outside'), 'planted');
      const crafted = path.join(staging, 'crafted.tar.gz');
      await create({ gzip: true, file: crafted, cwd: staging }, ['sendline-backup.json', 'database.sql', 'data-dir']);
      const res = await runSendline(['restore', crafted], { DATA_DIR: dataDir, DATABASE_URL: await freshDatabase('backup_crafted') });
      expect(res.code, JSON.stringify(secrets)).toBe(2);
      expect(res.stderr).toContain('names DATA_DIR files it does not hold');
    }
    expect(existsSync(path.join(dataDir, '..', 'outside'))).toBe(false);
  });
});

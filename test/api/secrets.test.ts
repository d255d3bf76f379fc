/**
 * The secrets apart: JWT_SECRET signs sessions only, and the key ring (SECRET_KEYS) keys the
 * links in mail and seals webhook secrets. Real server processes on one database, restarted with
 * rotated secrets, as an operator rotates them.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newAccount, waitFor, type TestAccount } from '../helpers.ts';
import { freshDatabase, withClient } from '../databases.ts';
import { create } from 'tar';
import { runSendline, spawnServer, type ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { verifyStandardWebhook, WebhookReceiver } from '../webhook-receiver.ts';

const PUBLIC_URL = 'http://mail.secrets.test';
const RELEASE_0_1_0 = new URL('../fixtures/releases/0.1.0/', import.meta.url).pathname;
const freshDir = () => mkdtempSync(path.join(tmpdir(), 'sendline-secrets-'));
const keyRing = (...keys: [string, string][]) => keys.map(([id, key]) => `${id}:${key}`).join(',');
const newKey = () => randomBytes(32).toString('base64');

const running = new Set<ServerProcess>();
async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await spawnServer(env);
  running.add(server);
  return server;
}
async function stop(server: ServerProcess) {
  server.proc.kill('SIGTERM');
  expect(await server.exited, server.output()).toBe(0);
  running.delete(server);
}
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
});

interface Links {
  click: string;
  pixel: string;
  unsubscribe: string;
  view: string;
}

describe('rotating the key ring and the JWT secret', { timeout: 120_000 }, () => {
  const [J1, J2] = ['jwt-secret-one-that-is-long-enough-0123456789', 'jwt-secret-two-that-is-long-enough-0123456789'];
  const [K1, K2] = [newKey(), newKey()];
  const legacy = Buffer.from(J1).toString('base64');
  let sink: SmtpSink;
  let receiver: WebhookReceiver;
  let base: Record<string, string>;
  let server: ServerProcess;
  let owner: TestAccount;
  let hook: { id: string; secret: string };
  let campaigns = 0;

  const restart = async (env: Record<string, string>) => {
    if (server) await stop(server);
    server = await start({ ...base, ...env });
    owner = { ...owner, api: client(server.url, { authorization: `Bearer ${owner.token}` }) };
  };
  /** Sends a campaign with one link to one new contact and answers the links of the mail it got. */
  const mailLinks = async (): Promise<Links> => {
    const email = `reader${++campaigns}@secrets.example`;
    expect((await owner.api('POST', '/api/contacts', { body: { email, tags: [`c${campaigns}`] } })).status).toBe(201);
    const { body: campaign } = await owner.api('POST', '/api/campaigns', {
      body: {
        name: `Rotation ${campaigns}`,
        subject: `Rotation ${campaigns}`,
        from_email: 'news@shop.example',
        content: `<a href="https://shop.example/${campaigns}">Shop</a>`,
        audience: { tags_any: [`c${campaigns}`] },
      },
    });
    expect((await owner.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
    const mail = await waitFor(() => sink.received.find((m) => m.to === email));
    const html = String(mail.mail.html);
    const local = (url: string) => url.replace(PUBLIC_URL, '');
    return {
      click: local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]),
      pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
      unsubscribe: local(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]),
      view: local(/href="([^"]+\/v\/[^"]+)"/.exec(html)![1]),
    };
  };
  const tokenOf = (link: string) => link.split('/').at(-1)!;
  const follow = (link: string, init: RequestInit = {}) => fetch(server.url + link, { redirect: 'manual', ...init });
  const unsubscribes = async (links: Links) => {
    const page = await follow(links.unsubscribe);
    return page.status === 200 && (await page.text()).includes('List-Unsubscribe');
  };
  /** The mail's web version: its page shows the campaign's content. */
  const viewable = async (links: Links) => {
    const page = await follow(links.view);
    return page.status === 200 && /Rotation \d+|shop\.example\/\d+/.test(await page.text());
  };
  const clicksThrough = async (links: Links) => {
    const res = await follow(links.click);
    return res.status === 302 && /^https:\/\/shop\.example\/\d+$/.test(res.headers.get('location') ?? '');
  };
  /** A test delivery, checked with the secret the API handed out when the webhook was made. */
  const signsWithHandedOutSecret = async () => {
    receiver.received.length = 0;
    const res = await owner.api('POST', `/api/webhooks/${hook.id}/test`);
    expect(res.body, JSON.stringify(res.body)).toMatchObject({ success: true, status_code: 200 });
    const [delivery] = receiver.received;
    return verifyStandardWebhook(hook.secret, delivery.headers, delivery.body);
  };
  /** The key id each webhook secret is sealed under, as stored. */
  const sealedUnder = () =>
    withClient(base.DATABASE_URL, async (db) =>
      (await db.query<{ id: string }>(`select split_part(secret_sealed, '.', 1) as id from webhooks`)).rows.map((r) => r.id),
    );
  /** The key id each DKIM private key is sealed under, as stored (three parts: the legacy key's). */
  const dkimSealedUnder = () =>
    withClient(base.DATABASE_URL, async (db) =>
      (
        await db.query<{ id: string }>(
          `select case when dkim_private_key_sealed ~ '^[^.]+[.][^.]+[.][^.]+$' then 'legacy' else split_part(dkim_private_key_sealed, '.', 1) end as id from sending_domains`,
        )
      ).rows.map((r) => r.id),
    );
  const jwtAccepted = async () => (await owner.api('GET', '/api/auth/me')).status === 200;

  let legacyLinks: Links;
  let k1Links: Links;
  let k2Links: Links;

  beforeAll(async () => {
    sink = await new SmtpSink().start();
    receiver = await new WebhookReceiver().start();
    base = {
      DATABASE_URL: await freshDatabase('secrets_rotation'),
      DATA_DIR: freshDir(),
      PUBLIC_URL,
      SMTP_URL: sink.url,
      ALLOW_SIGNUP: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      TRACKING_FLUSH_MS: '50',
    };
    // As an earlier release ran: JWT_SECRET alone keys everything.
    server = await start({ ...base, JWT_SECRET: J1 });
    owner = await newAccount(server.url, 'rotation');
    hook = (await owner.api('POST', '/api/webhooks', { body: { url: receiver.url, events: ['contact.*'] } })).body;
    // In an account of its own: with a domain, the owner's campaigns would have to come from it.
    const sender = await newAccount(server.url, 'dkim');
    expect((await sender.api('POST', '/api/domains', { body: { name: 'rotation.example' } })).status).toBe(201);
    expect(await dkimSealedUnder()).toEqual(['legacy']);
    legacyLinks = await mailLinks();
    expect(tokenOf(legacyLinks.click).split('.')).toHaveLength(2);
  });
  afterAll(async () => {
    if (server) await stop(server);
    await sink?.stop();
    await receiver?.stop();
  });

  it('keeps the links and webhook secrets of JWT_SECRET as the legacy key once SECRET_KEYS is set', async () => {
    await restart({ JWT_SECRET: J1, SECRET_KEYS: keyRing(['k1', K1], ['legacy', legacy]) });
    expect(await clicksThrough(legacyLinks)).toBe(true);
    expect(await unsubscribes(legacyLinks)).toBe(true);
    expect(await viewable(legacyLinks)).toBe(true);
    expect(await signsWithHandedOutSecret()).toBe(true);
    k1Links = await mailLinks();
    for (const link of Object.values(k1Links)) expect(tokenOf(link)).toMatch(/^k1\./);
  });

  it('after a rotation of the ring, still follows, unsubscribes and signs with what was made before, and makes new links under the new key', async () => {
    await restart({ JWT_SECRET: J1, SECRET_KEYS: keyRing(['k2', K2], ['k1', K1], ['legacy', legacy]) });
    // Sessions are none of the ring's business.
    expect(await jwtAccepted()).toBe(true);
    for (const links of [legacyLinks, k1Links]) {
      expect(await clicksThrough(links)).toBe(true);
      expect(await viewable(links)).toBe(true);
      expect((await follow(links.pixel)).headers.get('content-type')).toBe('image/gif');
    }
    expect(await signsWithHandedOutSecret()).toBe(true);
    // One-click unsubscribe through a link mailed under k1, before the rotation.
    const res = await follow(k1Links.unsubscribe, {
      method: 'POST',
      body: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('will receive no more email');
    k2Links = await mailLinks();
    for (const link of Object.values(k2Links)) expect(tokenOf(link)).toMatch(/^k2\./);
    // Sealed again under the new key at start, so that the old ones can leave the ring.
    expect(await sealedUnder()).toEqual(['k2']);
    expect(await dkimSealedUnder()).toEqual(['k2']);
  });

  it('keeps every link after a rotation of JWT_SECRET, which ends the sessions it signed', async () => {
    await restart({ JWT_SECRET: J2, SECRET_KEYS: keyRing(['k2', K2], ['k1', K1], ['legacy', legacy]) });
    expect(await jwtAccepted()).toBe(false);
    for (const links of [legacyLinks, k1Links, k2Links]) {
      expect(await clicksThrough(links)).toBe(true);
      expect(await unsubscribes(links)).toBe(true);
      expect(await viewable(links)).toBe(true);
    }
    owner = await (async () => {
      const login = await client(server.url)('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } });
      expect(login.status).toBe(200);
      return { ...owner, token: login.body.token, api: client(server.url, { authorization: `Bearer ${login.body.token}` }) };
    })();
    expect(await signsWithHandedOutSecret()).toBe(true);
  });

  it('answers the links of a key removed from the ring with a 404 page, and keeps the others', async () => {
    await restart({ JWT_SECRET: J2, SECRET_KEYS: keyRing(['k2', K2]) });
    for (const links of [legacyLinks, k1Links]) {
      const click = await follow(links.click);
      expect(click.status).toBe(404);
      expect(click.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await click.text()).toContain('This link is not valid');
      expect((await follow(links.unsubscribe)).status).toBe(404);
      expect(
        (
          await follow(links.unsubscribe, {
            method: 'POST',
            body: 'List-Unsubscribe=One-Click',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          })
        ).status,
      ).toBe(404);
    }
    expect(await clicksThrough(k2Links)).toBe(true);
    expect(await unsubscribes(k2Links)).toBe(true);
    expect(await jwtAccepted()).toBe(true);
    // The webhook secret handed out under the legacy key was sealed again under k2: it still signs.
    expect(await signsWithHandedOutSecret()).toBe(true);
    expect(server.output()).not.toContain('a public route failed');
    expect(server.output()).not.toContain('a DKIM key cannot be opened');
  });
});

describe('secrets generated per DATA_DIR on a shared DATABASE_URL', { timeout: 120_000 }, () => {
  it('warn in a process whose folder held them, and stop a new folder from joining a database in use', async () => {
    const env = { DATABASE_URL: await freshDatabase('secrets_generated'), ALLOW_SIGNUP: 'true' };
    const firstDir = freshDir();
    const first = await start({ ...env, DATA_DIR: firstDir });
    expect(first.output()).toMatch(/"level":40.*DATABASE_URL is set but JWT_SECRET and SECRET_KEYS came from DATA_DIR/);
    expect(readdirSync(firstDir)).toEqual(expect.arrayContaining(['jwt-secret', 'secret-keys']));
    await newAccount(first.url, 'generated');

    const secondDir = freshDir();
    for (let attempt = 0; attempt < 2; attempt++) {
      const refused = await start({ ...env, DATA_DIR: secondDir }).then(
        async (server) => (await stop(server), `started at ${server.url}`),
        (error: Error) => error.message,
      );
      expect(refused).toContain('server exited with 2');
      expect(refused).toContain("DATABASE_URL's database already holds accounts, but JWT_SECRET and SECRET_KEYS are not set");
      expect(refused).toContain('openssl rand -base64 32');
      // Nothing generated is left behind for a restart to take as the deployment's.
      expect(existsSync(path.join(secondDir, 'jwt-secret')) || existsSync(path.join(secondDir, 'secret-keys'))).toBe(false);
    }

    // A second process on the same folder shares its secrets: a session of one works on the other.
    const owner = await newAccount(first.url, 'shared');
    const second = await start({ ...env, DATA_DIR: firstDir });
    expect((await client(second.url, { authorization: `Bearer ${owner.token}` })('GET', '/api/auth/me')).status).toBe(200);
    await stop(second);
    await stop(first);
  });

  it('refuse a malformed SECRET_KEYS without printing its keys', async () => {
    const key = newKey();
    const refused = await start({ DATA_DIR: freshDir(), SECRET_KEYS: `k1:${key},k1:${newKey()}` }).then(
      async (server) => (await stop(server), 'started'),
      (error: Error) => error.message,
    );
    expect(refused).toContain('server exited with 2');
    expect(refused).toContain('Configuration error: SECRET_KEYS: entry 2 ("k1") repeats an id');
    expect(refused).not.toContain(key);
  });
});

describe('a backup taken before key rings', { timeout: 180_000 }, () => {
  it('restores into a new DATA_DIR whose first start pins its JWT secret as the legacy key, so its links work', async () => {
    const fixture = JSON.parse(readFileSync(path.join(RELEASE_0_1_0, 'fixture.json'), 'utf8'));
    // The backup 0.1.0 would have written: its database and DATA_DIR's jwt-secret, no key ring.
    const staging = freshDir();
    cpSync(path.join(RELEASE_0_1_0, 'database.sql'), path.join(staging, 'database.sql'));
    mkdirSync(path.join(staging, 'data-dir'));
    cpSync(path.join(RELEASE_0_1_0, 'data-dir', 'jwt-secret'), path.join(staging, 'data-dir', 'jwt-secret'));
    const manifest = { format: 1, version: '0.1.0', created_at: fixture.written_at, migrations: fixture.migrations, secrets: ['jwt-secret'] };
    writeFileSync(path.join(staging, 'sendline-backup.json'), JSON.stringify(manifest));
    const file = path.join(freshDir(), 'sendline.backup');
    await create({ gzip: true, file, cwd: staging, portable: true }, ['sendline-backup.json', 'database.sql', 'data-dir']);

    const env = { DATABASE_URL: await freshDatabase('secrets_old_backup'), DATA_DIR: freshDir() };
    const restored = await runSendline(['restore', file], env);
    expect(restored.code, restored.stderr).toBe(0);
    const server = await start({ ...env, PUBLIC_URL: fixture.public_url, SENDLINE_ROLE: 'api' });
    try {
      expect(readFileSync(path.join(env.DATA_DIR, 'secret-keys'), 'utf8')).toContain(
        `legacy:${Buffer.from(readFileSync(path.join(RELEASE_0_1_0, 'data-dir', 'jwt-secret'), 'utf8').trim()).toString('base64')}`,
      );
      const click = await fetch(server.url + fixture.links.click.url, { redirect: 'manual' });
      expect(click.status).toBe(302);
      expect(click.headers.get('location')).toBe(fixture.links.click.target);
      expect((await fetch(server.url + fixture.links.unsubscribe)).status).toBe(200);
    } finally {
      await stop(server);
    }
  });
});

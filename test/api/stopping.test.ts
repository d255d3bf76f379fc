import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, describe, expect, it } from 'vitest';
import { client, newAccount, waitFor, type TestAccount } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';

// Every server here runs on its own embedded PostgreSQL, as `npm start` does with no DATABASE_URL.
const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
});

async function start(dataDir: string, options: Parameters<typeof spawnServer>[1] = {}, env: Record<string, string> = {}) {
  const server = await spawnServer({ DATA_DIR: dataDir, ALLOW_SIGNUP: 'true', ...env }, options);
  running.push(server);
  return server;
}

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'sendline-stop-'));
const NPM_START = { command: ['npm', 'start'] as [string, ...string[]] };

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => {
      try {
        return parentOf(child) === pid;
      } catch {
        return false; // ended while listed
      }
    });
const postmasterOf = (dataDir: string) => Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
const serverOf = (dataDir: string) => Number(readFileSync(path.join(dataDir, 'pg-owner.pid'), 'utf8'));

/** Sends a one-recipient campaign into the capture outbox and answers its open-pixel URL. */
async function sentPixel(owner: TestAccount, dataDir: string, url: string) {
  await owner.api('POST', '/api/contacts', { body: { email: 'reader@example.com', tags: ['readers'] } });
  const { body: campaign } = await owner.api('POST', '/api/campaigns', {
    body: { name: 'Opened', subject: 'News', from_email: 'news@shop.example', content: '<p>Hi</p>', audience: { tags_any: ['readers'] } },
  });
  await owner.api('POST', `/api/campaigns/${campaign.id}/send`);
  await waitFor(async () => (await owner.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
  const outbox = path.join(dataDir, 'outbox');
  const [file] = readdirSync(outbox).filter((name) => name.endsWith('.eml'));
  const mail = await simpleParser(readFileSync(path.join(outbox, file)));
  const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(String(mail.html))![1];
  return { campaignId: campaign.id as string, pixel: url + new URL(pixel).pathname };
}

describe('stopping the server', () => {
  it('on Ctrl-C under npm start, writes the tracking hits it answered before PostgreSQL stops', async () => {
    const dataDir = freshDir();
    // Hits wait in memory for up to a minute: only the shutdown writes them.
    const env = { TRACKING_FLUSH_MS: '60000' };
    const first = await start(dataDir, { ...NPM_START, detached: true }, env);
    const owner = await newAccount(first.url);
    const { campaignId, pixel } = await sentPixel(owner, dataDir, first.url);
    for (let i = 0; i < 2; i++) expect((await fetch(pixel)).status).toBe(200);
    const postmaster = postmasterOf(dataDir);

    // A terminal's Ctrl-C: SIGINT to every process of the foreground group.
    process.kill(-first.proc.pid!, 'SIGINT');
    expect(await first.exited, first.output()).toBe(0);
    expect(first.output()).toContain('Sendline stopped');
    expect(first.output()).not.toMatch(/failed/);
    expect(isAlive(postmaster)).toBe(false);

    const second = await start(dataDir, {}, env);
    const opens = await client(second.url, { authorization: `Bearer ${owner.token}` })('GET', `/api/tracking/opens?campaign_id=${campaignId}`);
    expect(opens.body.data).toHaveLength(2);
    second.proc.kill('SIGTERM');
    expect(await second.exited, second.output()).toBe(0);
  });

  it('stops node and PostgreSQL when npm start is sent SIGTERM, as a supervisor does', async () => {
    const dataDir = freshDir();
    const npm = await start(dataDir, NPM_START);
    const [server, postmaster] = [serverOf(dataDir), postmasterOf(dataDir)];
    npm.proc.kill('SIGTERM');
    await npm.exited;
    expect(npm.output()).toContain('Sendline stopped');
    expect(isAlive(server)).toBe(false);
    expect(isAlive(postmaster)).toBe(false);
  });

  it('stops the embedded PostgreSQL by itself when its server is killed', async () => {
    const dataDir = freshDir();
    const first = await start(dataDir);
    const postmaster = postmasterOf(dataDir);
    first.proc.kill('SIGKILL');
    await first.exited;
    await waitFor(() => !isAlive(postmaster), 30_000);
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await start(dataDir);
    expect(second.output()).not.toContain('left running');
    second.proc.kill('SIGTERM');
    expect(await second.exited, second.output()).toBe(0);
  });

  it('stops a PostgreSQL left running without its watchdog and starts its own', async () => {
    const dataDir = freshDir();
    const first = await start(dataDir);
    const postmaster = postmasterOf(dataDir);
    // The watchdog is the postmaster's parent, and the shell that reads its pipe that parent's other child.
    const watchdog = parentOf(postmaster);
    for (const pid of [watchdog, ...childrenOf(watchdog).filter((pid) => pid !== postmaster)]) process.kill(pid, 'SIGKILL');
    first.proc.kill('SIGKILL');
    await first.exited;
    expect(isAlive(postmaster)).toBe(true);

    const second = await start(dataDir);
    expect(second.output()).toContain('stopping the embedded PostgreSQL left running by a process that ended');
    expect(isAlive(postmaster)).toBe(false);
    expect(postmasterOf(dataDir)).not.toBe(postmaster);
    second.proc.kill('SIGTERM');
    expect(await second.exited, second.output()).toBe(0);
  });
});

import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { client, newAccount, newApiKey, spawnTestServer, uniqueEmail } from '../helpers.ts';
import { spawnServer, type ServerProcess } from '../process.ts';
import { fileDatabaseUrl } from '../databases.ts';

const running: ServerProcess[] = [];
afterAll(() => {
  for (const server of running) server.proc.kill('SIGKILL');
});

async function start(env: Record<string, string>) {
  const server = await spawnServer(env);
  running.push(server);
  return server;
}

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'sendline-proc-'));

describe('two server processes on one database', () => {
  it('enforce one shared rate limit per key', async () => {
    const shared = { DATABASE_URL: fileDatabaseUrl(), JWT_SECRET: 'a-shared-secret-for-both-processes-0123456789', ALLOW_SIGNUP: 'true' };
    const [one, two] = await Promise.all([start({ ...shared, DATA_DIR: freshDir() }), start({ ...shared, DATA_DIR: freshDir() })]);
    const owner = await newAccount(one.url);
    const { key } = await newApiKey(owner, one.url, { rate_limit_per_minute: 10 });
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 8) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 100));
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const url = i % 2 ? two.url : one.url;
      statuses.push((await client(url, { 'x-api-key': key.key })('GET', '/api/auth/me')).status);
      // Each process counts in memory and shares its counts every 100 ms: the limit holds
      // exactly across processes for requests further apart than two of those.
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
  });
});

describe('the embedded default', () => {
  it('starts its own PostgreSQL, creates the first owner, keeps data across restarts and stops cleanly', async () => {
    const dataDir = freshDir();
    const env = { DATA_DIR: dataDir, ADMIN_EMAIL: 'first@example.com', ADMIN_PASSWORD: 'first owner password' };
    const first = await start(env);
    expect(first.output()).toContain('embedded PostgreSQL started');
    const login = () => client(first.url)('POST', '/api/auth/login', { body: { email: 'first@example.com', password: 'first owner password' } });
    const session = await login();
    expect(session.status).toBe(200);
    expect(session.body.user.role).toBe('owner');
    expect(first.output()).not.toContain('first owner password');

    // bin/sendline replaces itself with Node (signals reach the server), with its memory settings.
    expect(readFileSync(`/proc/${first.proc.pid}/cmdline`, 'utf8').split('\0').slice(1, 3)).toEqual(['--heap-growing-percent=50', 'server/main.ts']);
    const environ = readFileSync(`/proc/${first.proc.pid}/environ`, 'utf8').split('\0');
    expect(environ).toContain('MALLOC_ARENA_MAX=1');
    expect(environ).toContain('NODE_OPTIONS=--max-semi-space-size=8');

    first.proc.kill('SIGTERM');
    expect(await first.exited, first.output()).toBe(0);
    expect(existsSync(path.join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await start(env);
    expect(second.output()).not.toContain('created the first owner');
    const again = await client(second.url)('POST', '/api/auth/login', { body: { email: 'first@example.com', password: 'first owner password' } });
    expect(again.body.user.id).toBe(session.body.user.id);
    // The JWT secret was generated once and kept: the first process's token still verifies.
    expect((await client(second.url, { authorization: `Bearer ${session.body.token}` })('GET', '/api/auth/me')).status).toBe(200);
    second.proc.kill('SIGTERM');
    expect(await second.exited, second.output()).toBe(0);
  });

  it('finishes a request in flight before it stops', async () => {
    const server = await start({ DATA_DIR: freshDir(), ALLOW_SIGNUP: 'true' });
    const body = JSON.stringify({ email: uniqueEmail(), password: 'long enough password', name: 'n', account_name: 'a' });
    const { hostname, port } = new URL(server.url);
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          hostname,
          port,
          method: 'POST',
          path: '/api/auth/register',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      // Half the body now, SIGTERM, then the rest: the server must still answer.
      req.write(body.slice(0, 10));
      setTimeout(() => {
        server.proc.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 200);
    });
    expect(await answer).toBe(201);
    expect(await server.exited, server.output()).toBe(0);
  });

  it('warns at start when webhooks may go over http or to private networks', async () => {
    const server = await spawnTestServer({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    running.push(server);
    expect(server.output()).toContain('WEBHOOK_ALLOW_HTTP and WEBHOOK_ALLOW_PRIVATE_NETWORKS on: webhooks may go unencrypted');
    server.proc.kill('SIGTERM');
    expect(await server.exited, server.output()).toBe(0);
  });

  it('refuses bad configuration with a clear message', async () => {
    const proc = spawn(process.execPath, ['server/main.ts'], {
      env: { PATH: process.env.PATH, PORT: 'eighty', DATA_DIR: freshDir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (c) => (stderr += c));
    const code = await new Promise((resolve) => proc.on('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('PORT must be an integer from 0 to 65535, got "eighty"');
  });
});

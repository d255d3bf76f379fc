import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, startTestServer, TEST_JWT_SECRET, uniqueEmail } from '../helpers.ts';
import type { Sendline } from '../../server/start.ts';
import { fileDatabaseUrl } from '../databases.ts';

/** Runs `npm run user:create -- …` as a user types it, against the test database. */
function userCreate(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn('npm', ['run', '--silent', 'user:create', '--', ...args], {
    env: { ...process.env, DATABASE_URL: fileDatabaseUrl(), JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-cli-')) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => (stdout += chunk));
  proc.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run user:create', () => {
  let server: Sendline;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.stop());

  it('creates an owner with a new account, then a member of that account, who can both log in', async () => {
    const ownerEmail = uniqueEmail();
    const owner = await userCreate(['--email', ownerEmail, '--password', 'a long owner password', '--name', 'Ada']);
    expect(owner.code, owner.stderr).toBe(0);
    const created = JSON.parse(owner.stdout);
    expect(created).toMatchObject({ email: ownerEmail, role: 'owner' });

    const memberEmail = uniqueEmail();
    const member = await userCreate(['--email', memberEmail, '--password', 'a long member password', '--account', created.account_id]);
    expect(member.code, member.stderr).toBe(0);
    expect(JSON.parse(member.stdout)).toMatchObject({ email: memberEmail, role: 'member', account_id: created.account_id });

    const login = await client(server.url)('POST', '/api/auth/login', { body: { email: memberEmail, password: 'a long member password' } });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ role: 'member', account_id: created.account_id });
  });

  it('refuses a short password with a message and exit code 2', async () => {
    const result = await userCreate(['--email', uniqueEmail(), '--password', 'short']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('at least 10 characters');
  });
});

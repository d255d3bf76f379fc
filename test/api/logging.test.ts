import { afterAll, describe, expect, it } from 'vitest';
import { client, newAccount, newApiKey, spawnTestServer } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';

let server: ServerProcess;
afterAll(() => server?.proc.kill('SIGKILL'));

describe('logs', () => {
  it('carry a request id and never a password, token or key, even at trace level', async () => {
    server = await spawnTestServer({ LOG_LEVEL: 'trace' });
    const owner = await newAccount(server.url);
    const { key, api } = await newApiKey(owner, server.url);
    await api('GET', '/api/auth/me?limit=1');
    await client(server.url)('POST', '/api/auth/login', { body: { email: owner.email, password: 'a wrong password' } });
    const refreshed = await client(server.url)('POST', '/api/auth/refresh', { body: { refresh_token: owner.refreshToken } });
    await new Promise((r) => setTimeout(r, 200));
    const output = server.output();
    expect(output).toMatch(/"reqId":"[0-9a-f-]{36}".*"path":"\/api\/v1\/auth\/me"/);
    for (const secret of [owner.password, 'a wrong password', owner.token, owner.refreshToken, key.key, refreshed.body.refresh_token]) {
      expect(output).not.toContain(secret);
    }
  });
});

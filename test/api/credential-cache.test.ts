import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, expectProblem, newAccount, newApiKey, spawnTestServer, type TestAccount } from '../helpers.ts';
import type { Answer } from '../client.ts';
import type { ServerProcess } from '../process.ts';

/** Two server processes on one database: each caches keys and sessions in its own memory. */
let one: ServerProcess;
let two: ServerProcess;
let owner: TestAccount;

beforeAll(async () => {
  [one, two] = await Promise.all([spawnTestServer({}, { keepOutput: false }), spawnTestServer({}, { keepOutput: false })]);
  owner = await newAccount(one.url, 'cache');
}, 120_000);
afterAll(async () => {
  one.proc.kill('SIGTERM');
  two.proc.kill('SIGTERM');
  await Promise.all([one.exited, two.exited]);
});

/** How long until `call` answers `status`, polling; fails past `withinMs`. */
async function msUntil(call: () => Promise<Answer>, status: number, withinMs = 1000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const res = await call();
    const elapsed = Date.now() - started;
    if (res.status === status) return elapsed;
    if (elapsed > withinMs) throw new Error(`still ${res.status} after ${elapsed} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('credentials cached in each process', () => {
  it('a key revoked through one process stops working on the other within a second', async () => {
    const { key } = await newApiKey(owner, one.url);
    const onTwo = client(two.url, { 'x-api-key': key.key });
    // Cached on the second process by its first use.
    for (let i = 0; i < 3; i++) expect((await onTwo('GET', '/api/contacts')).status).toBe(200);
    expect((await owner.api('DELETE', `/api/api-keys/${key.id}`)).status).toBe(204);
    expect(await msUntil(() => onTwo('GET', '/api/contacts'), 401)).toBeLessThan(1000);
    expectProblem(await onTwo('GET', '/api/contacts'), 401, 'invalid_api_key');
  });

  it('scopes and allow-lists changed through one process hold on the other within a second', async () => {
    const { key } = await newApiKey(owner, one.url);
    const onTwo = client(two.url, { 'x-api-key': key.key });
    const create = () => onTwo('POST', '/api/campaigns', { body: { name: 'x', subject: 'x', from_email: 'a@shop.example', content: '<p>x</p>' } });
    expect((await create()).status).toBe(201);
    expect((await owner.api('PATCH', `/api/api-keys/${key.id}`, { body: { scopes: ['read'] } })).status).toBe(200);
    expect(await msUntil(create, 403)).toBeLessThan(1000);
    expect((await owner.api('PATCH', `/api/api-keys/${key.id}`, { body: { allowed_ips: ['203.0.113.0/24'] } })).status).toBe(200);
    expect(await msUntil(() => onTwo('GET', '/api/contacts'), 403)).toBeLessThan(1000);
    expectProblem(await onTwo('GET', '/api/contacts'), 403, 'ip_not_allowed');
  });

  it('a session ended through one process ends on the other within a second', async () => {
    const login = await client(one.url)('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } });
    const onTwo = client(two.url, { authorization: `Bearer ${login.body.token}` });
    expect((await onTwo('GET', '/api/auth/me')).status).toBe(200);
    expect((await client(one.url, { authorization: `Bearer ${login.body.token}` })('POST', '/api/auth/logout')).status).toBe(204);
    expect(await msUntil(() => onTwo('GET', '/api/auth/me'), 401)).toBeLessThan(1000);
  });

  it('a role changed through one process holds on the other within a second', async () => {
    const email = `member-${Date.now()}@example.com`;
    const member = await owner.api('POST', '/api/users', { body: { email, password: 'member password', name: 'M' } });
    const login = await client(one.url)('POST', '/api/auth/login', { body: { email, password: 'member password' } });
    const onTwo = client(two.url, { authorization: `Bearer ${login.body.token}` });
    expectProblem(await onTwo('GET', '/api/api-keys'), 403, 'insufficient_role');
    expect((await owner.api('PATCH', `/api/users/${member.body.id}`, { body: { role: 'admin' } })).status).toBe(200);
    expect(await msUntil(() => onTwo('GET', '/api/api-keys'), 200)).toBeLessThan(1000);
  });

  it('shares rate-limit counts between the processes', async () => {
    const { key } = await newApiKey(owner, one.url, { rate_limit_per_minute: 20 });
    // Inside one window.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 5) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 100));
    const call = (url: string) => client(url, { 'x-api-key': key.key })('GET', '/api/contacts');
    const first = [];
    for (let i = 0; i < 15; i++) first.push((await call(one.url)).status);
    // Past a flush of the first process's counts.
    await new Promise((r) => setTimeout(r, 300));
    const second = [];
    for (let i = 0; i < 10; i++) second.push(await call(two.url));
    expect(first.every((s) => s === 200)).toBe(true);
    expect(second.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);
    expect(second[0].headers.get('ratelimit-remaining')).toBe('4');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, newApiKey, startTestServer, type TestAccount, waitFor } from '../helpers.ts';

let sendline: Sendline;
let proxied: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  [sendline, proxied] = await Promise.all([startTestServer(), startTestServer({ TRUST_PROXY: 'loopback' })]);
  owner = await newAccount(sendline.url);
});
afterAll(() => Promise.all([sendline.stop(), proxied.stop()]));

describe('API keys', () => {
  it('shows the secret once and stores only its hash', async () => {
    const { key } = await newApiKey(owner, sendline.url, { name: 'ci', scopes: ['read'], rate_limit_per_minute: 120 });
    expect(key).toMatchObject({ name: 'ci', scopes: ['read'], allowed_ips: [], rate_limit_per_minute: 120, last_used_at: null });
    expect(key.id).toMatch(/^key_/);
    expect(key.key).toMatch(/^sl_live_[0-9A-Za-z]{40}$/);
    expect(key.key.startsWith(key.prefix)).toBe(true);

    const fetched = await owner.api('GET', `/api/api-keys/${key.id}`);
    expect(fetched.body).not.toHaveProperty('key');
    const listed = await owner.api('GET', '/api/api-keys');
    expect(JSON.stringify(listed.body)).not.toContain(key.key);

    const rows = await sendline.orm.em.getConnection().execute('select * from api_keys where id = ?', [key.id]);
    expect(JSON.stringify(rows)).not.toContain(key.key);
    expect(rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('authenticates with X-API-Key and with Authorization: Bearer', async () => {
    for (const header of ['x-api-key', 'bearer'] as const) {
      const { api } = await newApiKey(owner, sendline.url, {}, header);
      const me = await api('GET', '/api/auth/me');
      expect(me.status).toBe(200);
      expect(me.body).toMatchObject({ user: null, account: { id: owner.accountId }, auth: 'api_key', scopes: ['read', 'write'] });
    }
  });

  it('records when a key was last used, within five seconds, for accepted uses only', async () => {
    const { key, api } = await newApiKey(owner, sendline.url);
    const refused = await newApiKey(owner, sendline.url, { allowed_ips: ['203.0.113.0/24'] });
    expectProblem(await refused.api('GET', '/api/auth/me'), 403, 'ip_not_allowed');
    await api('GET', '/api/auth/me');
    const fetched = await waitFor(async () => {
      const res = await owner.api('GET', `/api/api-keys/${key.id}`);
      return res.body.last_used_at !== null && res.body;
    }, 10_000);
    expect(Date.parse(fetched.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    // Written in the same batch as the accepted key's use, had it counted.
    expect((await owner.api('GET', `/api/api-keys/${refused.key.id}`)).body.last_used_at).toBeNull();
  });

  it('refuses unknown keys', async () => {
    const res = await client(sendline.url, { 'x-api-key': 'sl_live_' + 'x'.repeat(40) })('GET', '/api/auth/me');
    expectProblem(res, 401, 'invalid_api_key');
  });

  it('gives a read-only key 403 on writes', async () => {
    const { api } = await newApiKey(owner, sendline.url, { scopes: ['read'] });
    expect((await api('GET', '/api/auth/me')).status).toBe(200);
    expectProblem(await api('POST', '/api/campaigns', { body: {} }), 403, 'insufficient_scope');
  });

  it('revocation takes effect at once', async () => {
    const { key, api } = await newApiKey(owner, sendline.url);
    expect((await api('GET', '/api/auth/me')).status).toBe(200);
    expect((await owner.api('DELETE', `/api/api-keys/${key.id}`)).status).toBe(204);
    expectProblem(await api('GET', '/api/auth/me'), 401, 'invalid_api_key');
    expectProblem(await owner.api('GET', `/api/api-keys/${key.id}`), 404, 'not_found');
  });

  it('refuses expired keys', async () => {
    const { key, api } = await newApiKey(owner, sendline.url, { expires_at: new Date(Date.now() + 1500).toISOString() });
    expect(key.expires_at).not.toBeNull();
    expect((await api('GET', '/api/auth/me')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1600));
    expectProblem(await api('GET', '/api/auth/me'), 401, 'invalid_api_key');
  });

  it('updates name, scopes, allow-list and limit', async () => {
    const { key, api } = await newApiKey(owner, sendline.url);
    const res = await owner.api('PATCH', `/api/api-keys/${key.id}`, { body: { name: 'renamed', scopes: ['read'], rate_limit_per_minute: 7 } });
    expect(res.body).toMatchObject({ name: 'renamed', scopes: ['read'], rate_limit_per_minute: 7 });
    expectProblem(await api('POST', '/api/campaigns', { body: {} }), 403, 'insufficient_scope');
    expect((await api('GET', '/api/auth/me')).headers.get('ratelimit-limit')).toBe('7');
  });

  it('is managed only by owners and admins in a session', async () => {
    const { api } = await newApiKey(owner, sendline.url);
    expectProblem(await api('GET', '/api/api-keys'), 403, 'session_required');
    expectProblem(await api('POST', '/api/api-keys', { body: { name: 'escalate' } }), 403, 'session_required');
    const member = await owner.api('POST', '/api/users', { body: { email: `m-${Date.now()}@example.com`, password: 'member password', name: 'M' } });
    const login = await client(sendline.url)('POST', '/api/auth/login', { body: { email: member.body.email, password: 'member password' } });
    const asMember = client(sendline.url, { authorization: `Bearer ${login.body.token}` });
    expectProblem(await asMember('GET', '/api/api-keys'), 403, 'insufficient_role');
  });
});

describe('IP allow-lists', () => {
  it('accepts calls from inside the CIDRs and refuses others with 403 ip_not_allowed', async () => {
    const inside = await newApiKey(owner, sendline.url, { allowed_ips: ['10.0.0.0/8', '127.0.0.0/8'] });
    expect((await inside.api('GET', '/api/auth/me')).status).toBe(200);
    const outside = await newApiKey(owner, sendline.url, { allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    expectProblem(await outside.api('GET', '/api/auth/me'), 403, 'ip_not_allowed');
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const account = await newAccount(proxied.url, 'proxy');
    const { key } = await newApiKey(account, proxied.url, { allowed_ips: ['203.0.113.0/24', '2001:db8::/32'] });
    const via = (ip: string, url: string) => client(url, { 'x-api-key': key.key, 'x-forwarded-for': ip })('GET', '/api/auth/me');
    expect((await via('203.0.113.9', proxied.url)).status).toBe(200);
    expect((await via('2001:db8::7', proxied.url)).status).toBe(200);
    expectProblem(await via('198.51.100.1', proxied.url), 403, 'ip_not_allowed');
    // The same header sent to a server that does not trust proxies changes nothing.
    expectProblem(await via('203.0.113.9', sendline.url), 403, 'ip_not_allowed');
  });

  it('refuses malformed CIDRs naming the entry', async () => {
    const res = await owner.api('POST', '/api/api-keys', { body: { name: 'bad', allowed_ips: ['10.0.0.0/8', '300.1.1.1/8', '::1/129'] } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/allowed_ips/1', '/allowed_ips/2']);
  });
});

describe('rate limits', () => {
  it('sends RateLimit headers and answers 429 with Retry-After past the limit', async () => {
    const { api } = await newApiKey(owner, sendline.url, { rate_limit_per_minute: 3 });
    // Stay inside one window: the test needs four requests in the same minute.
    const secondsLeft = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (secondsLeft < 5) await new Promise((r) => setTimeout(r, secondsLeft * 1000 + 100));
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await api('GET', '/api/auth/me'));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    expect(answers[0].headers.get('ratelimit-limit')).toBe('3');
    expect(answers[0].headers.get('ratelimit-policy')).toBe('3;w=60');
    const reset = Number(answers[0].headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60);
    expectProblem(answers[3], 429, 'rate_limited');
    expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('defaults to 600 a minute', async () => {
    const { api } = await newApiKey(owner, sendline.url);
    expect((await api('GET', '/api/auth/me')).headers.get('ratelimit-limit')).toBe('600');
  });
});

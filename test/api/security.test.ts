import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, newApiKey, startTestServer, uniqueEmail, type Answer } from '../helpers.ts';

let sendline: Sendline;
let limited: Sendline;

beforeAll(async () => {
  [sendline, limited] = await Promise.all([
    startTestServer(),
    // X-Forwarded-For gives each test an address of its own.
    startTestServer({ TRUST_PROXY: 'loopback', SIGNUPS_PER_HOUR: '3', INVALID_API_KEYS_PER_MINUTE: '5' }),
  ]);
});
afterAll(() => Promise.all([sendline.stop(), limited.stop()]));

const address = () => `2001:db8:5::${randomUUID().slice(0, 4)}`;

/** The status and headers of a refused WebSocket upgrade. */
const upgradeRefusal = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const ws = new WebSocket(url.replace('http://', 'ws://'), { headers });
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
  });

describe('hardening headers', () => {
  it('every kind of answer says nosniff and may not be framed', async () => {
    const account = await newAccount(sendline.url, 'headers');
    const anon = client(sendline.url);
    const answers: [string, Answer][] = [
      ['health', await anon('GET', '/healthz')],
      ['API answer', await account.api('GET', '/api/auth/me')],
      ['401 problem', await anon('GET', '/api/auth/me')],
      ['404 problem', await anon('GET', '/api/no-such-route')],
      ['400 problem', await anon('POST', '/api/auth/login', { body: { email: 'x' } })],
      ['contract', await anon('GET', '/api/openapi.json')],
      ['reference', await anon('GET', '/docs')],
      ['open pixel', await anon('GET', '/t/o/not-a-token.gif')],
      ['click 404 page', await anon('GET', '/t/c/not-a-token')],
      ['unsubscribe 404 page', await anon('GET', '/u/not-a-token')],
    ];
    for (const [what, res] of answers) {
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), what).toBe('DENY');
      expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
    }
    // Pages keep their own policy, with framing forbidden in it.
    for (const [what, res] of answers.filter(([w]) => w === 'reference' || w.endsWith('page'))) {
      expect(res.headers.get('content-security-policy'), what).toMatch(/default-src '(self|none)'.*frame-ancestors 'none'/);
    }
    const refused = await upgradeRefusal(`${sendline.url}/api/ws`, {});
    expect(refused.status).toBe(401);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('per-address throttling', () => {
  it('counts sign-ups per address, in parallel too, and answers 429 with Retry-After past the limit', async () => {
    for (let round = 0; round < 3; round++) {
      const from = client(limited.url, { 'x-forwarded-for': address() });
      const register = (email: string) =>
        from('POST', '/api/auth/register', { body: { email, password: 'long enough password', name: 'R', account_name: 'R' } });
      const answers = await Promise.all(Array.from({ length: 10 }, () => register(uniqueEmail('signup'))));
      expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
      const refused = answers.filter((a) => a.status !== 201);
      expect(refused).toHaveLength(7);
      for (const res of refused) {
        expectProblem(res, 429, 'too_many_signups');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    // Another address signs up.
    const other = client(limited.url, { 'x-forwarded-for': address() });
    expect(
      (await other('POST', '/api/auth/register', { body: { email: uniqueEmail(), password: 'long enough password', name: 'R', account_name: 'R' } })).status,
    ).toBe(201);
  });

  it('refuses API keys from an address that presented too many unknown ones, without looking them up', async () => {
    // Made on the other server (one database): every test file signs up from 127.0.0.1.
    const account = await newAccount(sendline.url, 'keys');
    const { key } = await newApiKey(account, sendline.url);
    for (let round = 0; round < 3; round++) {
      // The counters are per minute: a round that straddles two minutes is run again.
      const minute = Math.floor(Date.now() / 60_000);
      const ip = address();
      const bad = client(limited.url, { 'x-forwarded-for': ip, 'x-api-key': `sl_live_${randomUUID().replaceAll('-', '')}` });
      const answers = await Promise.all(Array.from({ length: 12 }, () => bad('GET', '/api/contacts')));
      if (Math.floor(Date.now() / 60_000) !== minute) {
        round--;
        continue;
      }
      expect(answers.filter((a) => a.status === 401)).toHaveLength(5);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(7);
      for (const res of refused) {
        expectProblem(res, 429, 'too_many_invalid_api_keys');
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      // Until the minute ends, that address's API-key requests are refused, the event stream's
      // too; its sessions are not.
      expectProblem(await client(limited.url, { 'x-forwarded-for': ip, 'x-api-key': key.key })('GET', '/api/contacts'), 429, 'too_many_invalid_api_keys');
      const upgrade = await upgradeRefusal(`${limited.url}/api/ws`, { 'x-forwarded-for': ip, 'x-api-key': key.key });
      expect(upgrade.status).toBe(429);
      expect(Number(upgrade.headers['retry-after'])).toBeGreaterThan(0);
      expect((await client(limited.url, { 'x-forwarded-for': ip, authorization: `Bearer ${account.token}` })('GET', '/api/contacts')).status).toBe(200);
    }
    // The key works from elsewhere.
    expect((await client(limited.url, { 'x-forwarded-for': address(), 'x-api-key': key.key })('GET', '/api/contacts')).status).toBe(200);
  });
});

describe('two credentials in one request', () => {
  it('answers 400 ambiguous_credentials, whether the credentials agree or not, on HTTP and on the WebSocket', async () => {
    const account = await newAccount(sendline.url, 'ambiguous');
    const other = await newAccount(sendline.url, 'ambiguous-other');
    const { key } = await newApiKey(account, sendline.url, { scopes: ['read', 'write'] });
    const { key: otherKey } = await newApiKey(other, sendline.url, { scopes: ['read', 'write'] });
    const pairs: Record<string, string>[] = [
      // A valid key with a bearer that is no credential at all.
      { 'x-api-key': key.key, authorization: 'Bearer not-a-valid-token' },
      { 'x-api-key': key.key, authorization: `Bearer sl_live_${randomUUID().replaceAll('-', '')}` },
      // Two valid credentials of two accounts, and two of one account.
      { 'x-api-key': key.key, authorization: `Bearer ${other.token}` },
      { 'x-api-key': otherKey.key, authorization: `Bearer ${account.token}` },
      { 'x-api-key': key.key, authorization: `Bearer ${key.key}` },
      // An invalid key with a valid JWT.
      { 'x-api-key': 'sl_live_unknown', authorization: `Bearer ${account.token}` },
    ];
    for (const headers of pairs) {
      expectProblem(await client(sendline.url, headers)('GET', '/api/contacts'), 400, 'ambiguous_credentials');
      const write = await client(sendline.url, headers)('POST', '/api/contacts', { body: { email: uniqueEmail('ambiguous') } });
      expectProblem(write, 400, 'ambiguous_credentials');
      expect((await upgradeRefusal(`${sendline.url}/api/ws`, headers)).status).toBe(400);
    }
    // A JWT in the WebSocket's query beside a header credential is two credentials too.
    expect((await upgradeRefusal(`${sendline.url}/api/ws?token=${account.token}`, { 'x-api-key': key.key })).status).toBe(400);
    expect((await upgradeRefusal(`${sendline.url}/api/ws?token=${account.token}`, { authorization: `Bearer ${other.token}` })).status).toBe(400);
    // Nothing was written, and one credential alone still works.
    expect((await client(sendline.url, { 'x-api-key': key.key })('GET', '/api/contacts')).body.data).toEqual([]);
    expect((await client(sendline.url, { authorization: `Bearer ${key.key}` })('GET', '/api/contacts')).status).toBe(200);
    expect((await account.api('GET', '/api/contacts')).status).toBe(200);
    // A bearer with no token is no second credential: openapi-generator's Ruby client sends one beside its key.
    for (const authorization of ['Bearer ', 'Bearer', ''])
      expect((await client(sendline.url, { 'x-api-key': key.key, authorization })('GET', '/api/contacts')).status, authorization).toBe(200);
  });
});

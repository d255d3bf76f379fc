import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, newApiKey, startTestServer, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  owner = await newAccount(sendline.url, 'cookie');
});
afterAll(() => sendline.stop());

const anon = () => client(sendline.url);
const cookieOf = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith('sendline_refresh='));
const markerOf = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith('sendline_session='));
const valueOf = (line: string) => line.split(';')[0];

async function cookieLogin() {
  const res = await anon()('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password, refresh_cookie: true } });
  expect(res.status).toBe(200);
  return res;
}

describe('refresh token in a cookie', () => {
  it('login with refresh_cookie sets an HttpOnly, SameSite=Strict cookie on the refresh path and answers no refresh token', async () => {
    const res = await cookieLogin();
    expect(res.body.token).toBeTypeOf('string');
    expect(res.body).not.toHaveProperty('refresh_token');
    const cookie = cookieOf(res.headers)!;
    expect(cookie).toMatch(/; Path=\/api\/v1\/auth\/refresh/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    // Plain HTTP here: Secure would keep the browser from sending it back.
    expect(cookie).not.toMatch(/; Secure/);
  });

  it('login with refresh_cookie also sets a marker the dashboard reads, holding no secret; logout clears it', async () => {
    const res = await cookieLogin();
    const marker = markerOf(res.headers)!;
    expect(marker).toMatch(/^sendline_session=1; /);
    expect(marker).toMatch(/; Path=\/app/);
    expect(marker).toMatch(/; SameSite=Strict/);
    expect(marker).not.toMatch(/; HttpOnly/);
    const out = await client(sendline.url, { authorization: `Bearer ${res.body.token}` })('POST', '/api/auth/logout');
    expect(markerOf(out.headers)).toMatch(/^sendline_session=;.*Expires=Thu, 01 Jan 1970/);
  });

  it('is Secure when the request came over HTTPS', async () => {
    const proxied = await startTestServer({ TRUST_PROXY: 'loopback' });
    try {
      const res = await client(proxied.url)('POST', '/api/auth/login', {
        body: { email: owner.email, password: owner.password, refresh_cookie: true },
        headers: { 'x-forwarded-proto': 'https' },
      });
      expect(cookieOf(res.headers)).toMatch(/; Secure/);
    } finally {
      await proxied.stop();
    }
  });

  it('refresh reads the cookie only when asked to, and rotates it', async () => {
    const first = valueOf(cookieOf((await cookieLogin()).headers)!);
    // A cookie alone (what a cross-site request could carry) is not enough.
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: {}, headers: { cookie: first } }), 401, 'invalid_token');
    const res = await anon()('POST', '/api/auth/refresh', { body: { refresh_cookie: true }, headers: { cookie: first } });
    expect(res.status).toBe(200);
    expect(res.body).not.toHaveProperty('refresh_token');
    const second = valueOf(cookieOf(res.headers)!);
    expect(second).not.toBe(first);
    const me = await client(sendline.url, { authorization: `Bearer ${res.body.token}` })('GET', '/api/auth/me');
    expect(me.body.user.email).toBe(owner.email);
    // The old cookie was single-use: replaying it revokes the session.
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: { refresh_cookie: true }, headers: { cookie: first } }), 401, 'refresh_token_reused');
  });

  it('without the cookie the refresh answers 401', async () => {
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: { refresh_cookie: true } }), 401, 'invalid_token');
  });

  it('API clients are unaffected: no cookie, the refresh token in the answer', async () => {
    const res = await anon()('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } });
    expect(cookieOf(res.headers)).toBeUndefined();
    const refreshed = await anon()('POST', '/api/auth/refresh', { body: { refresh_token: res.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).toBeTypeOf('string');
  });

  it('logout clears the cookie; logout everywhere ends every session of the user', async () => {
    const a = await cookieLogin();
    const b = await cookieLogin();
    const asA = client(sendline.url, { authorization: `Bearer ${a.body.token}` });
    const asB = client(sendline.url, { authorization: `Bearer ${b.body.token}` });
    const out = await asA('POST', '/api/auth/logout');
    expect(out.status).toBe(204);
    expect(cookieOf(out.headers)).toMatch(/^sendline_refresh=;.*Expires=Thu, 01 Jan 1970/);
    expect((await asA('GET', '/api/auth/me')).status).toBe(401);
    expect((await asB('GET', '/api/auth/me')).status).toBe(200);

    const c = await cookieLogin();
    const asC = client(sendline.url, { authorization: `Bearer ${c.body.token}` });
    expect((await asC('POST', '/api/auth/logout', { body: { everywhere: true } })).status).toBe(204);
    expect((await asB('GET', '/api/auth/me')).status).toBe(401);
    expect((await asC('GET', '/api/auth/me')).status).toBe(401);
    const refreshB = await anon()('POST', '/api/auth/refresh', { body: { refresh_cookie: true }, headers: { cookie: valueOf(cookieOf(b.headers)!) } });
    expect(refreshB.status).toBe(401);
  });
});

describe('logout', () => {
  it('answers a body that is not an object with a 4xx, from a session or an API key', async () => {
    // An account of its own: the tests above end every session of theirs.
    const caller = await newAccount(sendline.url, 'logout');
    const { api: withKey } = await newApiKey(caller, sendline.url);
    for (const api of [caller.api, withKey]) {
      for (const raw of ['"AAA"', '[]', '7', 'null']) {
        const res = await api('POST', '/api/auth/logout', {
          raw,
          headers: { 'content-type': 'application/json', 'idempotency-key': `k-${raw}-${Math.random()}` },
        });
        expect(res.status, raw).toBeGreaterThanOrEqual(400);
        expect(res.status, raw).toBeLessThan(500);
      }
    }
  });
});

import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { TEST_JWT_SECRET, client, expectProblem, newAccount, startTestServer, uniqueEmail, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let closed: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  [sendline, closed] = await Promise.all([
    startTestServer({ LOGIN_ATTEMPTS_PER_15_MIN: '4', TRUST_PROXY: 'loopback' }),
    startTestServer({ ALLOW_SIGNUP: 'false' }),
  ]);
  owner = await newAccount(sendline.url);
});
afterAll(() => Promise.all([sendline.stop(), closed.stop()]));

const anon = () => client(sendline.url);
const bearer = (token: string) => client(sendline.url, { authorization: `Bearer ${token}` });

describe('register', () => {
  it('creates an account and its owner, with a session', async () => {
    const email = uniqueEmail('reg');
    const res = await anon()('POST', '/api/auth/register', {
      body: { email: email.toUpperCase().replace('@EXAMPLE.COM', '@Example.COM'), password: 'long enough password', name: 'Reg', account_name: 'Reg Inc' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, expires_in: 900, user: { role: 'owner', name: 'Reg' } });
    expect(res.body.user.id).toMatch(/^usr_/);
    expect(res.body.user.account_id).toMatch(/^acc_/);
    // Stored with the domain lower-cased; the local part keeps its case.
    expect(res.body.user.email).toBe(email.toUpperCase().replace('@EXAMPLE.COM', '@example.com'));
  });

  it('refuses an email that is taken, whatever its case', async () => {
    const res = await anon()('POST', '/api/auth/register', {
      body: { email: owner.email.toUpperCase(), password: 'long enough password', name: 'X', account_name: 'X' },
    });
    expectProblem(res, 409, 'email_taken');
  });

  it('parallel sign-ups with one email: one account, the others 409 email_taken', async () => {
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('twin');
      const answers = await Promise.all(
        Array.from({ length: 3 }, () =>
          anon()('POST', '/api/auth/register', { body: { email, password: 'long enough password', name: 'T', account_name: 'T' } }),
        ),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const res of answers.filter((a) => a.status !== 201)) expectProblem(res, 409, 'email_taken');
    }
  });

  it('is disabled unless ALLOW_SIGNUP=true', async () => {
    const res = await client(closed.url)('POST', '/api/auth/register', {
      body: { email: uniqueEmail(), password: 'long enough password', name: 'X', account_name: 'X' },
    });
    expectProblem(res, 403, 'signup_disabled');
  });

  it('refuses short passwords', async () => {
    const res = await anon()('POST', '/api/auth/register', { body: { email: uniqueEmail(), password: 'short', name: 'X', account_name: 'X' } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].pointer).toBe('/password');
  });
});

describe('login', () => {
  it('answers a session with the user', async () => {
    const res = await anon()('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, expires_in: 900, user: { id: owner.userId, email: owner.email, role: 'owner' } });
    const claims = jwt.verify(res.body.token, TEST_JWT_SECRET, { algorithms: ['HS256'] }) as jwt.JwtPayload;
    expect(claims).toMatchObject({ iss: 'sendline', aud: 'sendline-api', sub: owner.userId });
    expect(claims.exp! - claims.iat!).toBe(900);
  });

  it('answers the same 401 for a wrong password and an unknown email', async () => {
    const account = await newAccount(sendline.url, 'enum');
    const wrongPassword = await anon()('POST', '/api/auth/login', { body: { email: account.email, password: 'not the password' } });
    const unknownEmail = await anon()('POST', '/api/auth/login', { body: { email: uniqueEmail('ghost'), password: 'not the password' } });
    expectProblem(wrongPassword, 401, 'invalid_credentials');
    expect(unknownEmail.body).toEqual(wrongPassword.body);
  });

  it('takes similar time for a wrong password and an unknown email', async () => {
    const account = await newAccount(sendline.url, 'timing');
    const time = async (email: string) => {
      const started = performance.now();
      await anon()('POST', '/api/auth/login', { body: { email, password: 'not the password' } });
      return performance.now() - started;
    };
    const known = await time(account.email);
    const unknown = await time(uniqueEmail('ghost'));
    // Both run one argon2 verification; without the decoy, the unknown email answers in ~1 ms.
    expect(unknown).toBeGreaterThan(known / 4);
  });

  it('throttles repeated failures for one email with 429 and Retry-After', async () => {
    const account = await newAccount(sendline.url, 'throttle');
    for (let i = 0; i < 4; i++) {
      expectProblem(await anon()('POST', '/api/auth/login', { body: { email: account.email, password: 'wrong password' } }), 401, 'invalid_credentials');
    }
    const blocked = await anon()('POST', '/api/auth/login', { body: { email: account.email, password: account.password } });
    expectProblem(blocked, 429, 'too_many_login_attempts');
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another email from the same address is not blocked yet.
    const other = await newAccount(sendline.url, 'other');
    expect((await anon()('POST', '/api/auth/login', { body: { email: other.email, password: other.password } })).status).toBe(200);
  });

  it('throttles one address failing across many emails (behind a trusted proxy)', async () => {
    const fromIp = client(sendline.url, { 'x-forwarded-for': `198.51.100.${Math.floor(Math.random() * 250)}` });
    let last = 0;
    for (let i = 0; i < 25 && last !== 429; i++) {
      last = (await fromIp('POST', '/api/auth/login', { body: { email: uniqueEmail('spray'), password: 'wrong password' } })).status;
    }
    expect(last).toBe(429);
    // The next address behind the same proxy is not affected.
    const neighbour = client(sendline.url, { 'x-forwarded-for': '203.0.113.250' });
    expect((await neighbour('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password } })).status).toBe(200);
  });

  it('counts parallel failures for one email before checking them: no more than the limit are checked', async () => {
    for (let round = 0; round < 3; round++) {
      const account = await newAccount(sendline.url, 'burst');
      // An address of its own, so only the per-email limit (4 on this server) applies.
      const fromIp = client(sendline.url, { 'x-forwarded-for': `2001:db8::${randomUUID().slice(0, 4)}:${round}` });
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => fromIp('POST', '/api/auth/login', { body: { email: account.email, password: 'wrong password' } })),
      );
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(4);
      expect(statuses.filter((s) => s === 429)).toHaveLength(26);
      for (const blocked of answers.filter((a) => a.status === 429)) {
        expectProblem(blocked, 429, 'too_many_login_attempts');
        expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
  });

  it('counts parallel failures from one address before checking them', async () => {
    for (let round = 0; round < 3; round++) {
      const fromIp = client(sendline.url, { 'x-forwarded-for': `2001:db8:1::${randomUUID().slice(0, 4)}:${round}` });
      const answers = await Promise.all(
        Array.from({ length: 40 }, () => fromIp('POST', '/api/auth/login', { body: { email: uniqueEmail('spray'), password: 'wrong password' } })),
      );
      // Five times the per-email limit per address.
      expect(answers.filter((a) => a.status === 401)).toHaveLength(20);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(20);
    }
  });
});

describe('tokens', () => {
  it('rejects tampered, unsigned, foreign and expired tokens', async () => {
    const claims = { sid: 'ses_x', acc: owner.accountId };
    const forged = [
      owner.token.slice(0, -3) + 'abc',
      jwt.sign(claims, 'another secret that is long enough', { algorithm: 'HS256', issuer: 'sendline', audience: 'sendline-api', subject: owner.userId }),
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256', issuer: 'sendline', audience: 'other', subject: owner.userId }),
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS256', issuer: 'sendline', audience: 'sendline-api', subject: owner.userId, expiresIn: -10 }),
      jwt.sign(claims, TEST_JWT_SECRET, { algorithm: 'HS512', issuer: 'sendline', audience: 'sendline-api', subject: owner.userId }),
      `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, sub: owner.userId, iss: 'sendline', aud: 'sendline-api' })).toString('base64url')}.`,
    ];
    for (const token of forged) expectProblem(await bearer(token)('GET', '/api/auth/me'), 401, 'invalid_token');
  });

  it('refresh rotates the refresh token; reusing an old one revokes the session', async () => {
    const account = await newAccount(sendline.url, 'refresh');
    const first = await anon()('POST', '/api/auth/refresh', { body: { refresh_token: account.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(account.refreshToken);
    expect((await bearer(first.body.token)('GET', '/api/auth/me')).status).toBe(200);

    const reuse = await anon()('POST', '/api/auth/refresh', { body: { refresh_token: account.refreshToken } });
    expectProblem(reuse, 401, 'refresh_token_reused');
    // The whole family is gone: the newest refresh token and the access tokens too.
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: { refresh_token: first.body.refresh_token } }), 401, 'invalid_token');
    expectProblem(await bearer(first.body.token)('GET', '/api/auth/me'), 401, 'invalid_token');
    expectProblem(await account.api('GET', '/api/auth/me'), 401, 'invalid_token');
  });

  it('refuses a malformed refresh token', async () => {
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: { refresh_token: 'nonsense' } }), 401, 'invalid_token');
  });

  it('logout ends the session at once', async () => {
    const account = await newAccount(sendline.url, 'logout');
    const other = await anon()('POST', '/api/auth/login', { body: { email: account.email, password: account.password } });
    expect((await account.api('POST', '/api/auth/logout')).status).toBe(204);
    expectProblem(await account.api('GET', '/api/auth/me'), 401, 'invalid_token');
    expectProblem(await anon()('POST', '/api/auth/refresh', { body: { refresh_token: account.refreshToken } }), 401, 'invalid_token');
    // Other sessions of the same user live on.
    expect((await bearer(other.body.token)('GET', '/api/auth/me')).status).toBe(200);
  });

  it('me tells the user, account and how the call authenticated', async () => {
    const res = await owner.api('GET', '/api/auth/me');
    expect(res.body).toMatchObject({
      user: { id: owner.userId },
      account: { id: owner.accountId, name: 'owner Ltd' },
      auth: 'session',
      scopes: ['read', 'write'],
    });
  });
});

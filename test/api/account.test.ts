/** The account (`GET`/`PATCH /account`) and a user's own password change (`POST /auth/password`). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, newApiKey, startTestServer, uniqueEmail, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer({ LOGIN_ATTEMPTS_PER_15_MIN: '5' });
  owner = await newAccount(sendline.url, 'account');
});
afterAll(() => sendline.stop());

const PASSWORD = 'user password 123';

async function login(email: string, password: string) {
  const res = await client(sendline.url)('POST', '/api/auth/login', { body: { email, password } });
  return { status: res.status, api: client(sendline.url, { authorization: `Bearer ${res.body.token}` }), refreshToken: res.body.refresh_token as string };
}

async function addUser(by: TestAccount['api'], role: 'owner' | 'admin' | 'member') {
  const email = uniqueEmail(role);
  const res = await by('POST', '/api/users', { body: { email, password: PASSWORD, name: role, role } });
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return { email, ...(await login(email, PASSWORD)) };
}

describe('the account', () => {
  it('is read by any credential of the account', async () => {
    const answer = await owner.api('GET', '/api/account');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: owner.accountId, name: 'account Ltd', public_id: expect.any(String), timezone: 'UTC', created_at: expect.any(String) });
    const { api: keyed } = await newApiKey(owner, sendline.url, { scopes: ['read'] });
    expect((await keyed('GET', '/api/account')).body.id).toBe(owner.accountId);
    const member = await addUser(owner.api, 'member');
    expect((await member.api('GET', '/api/account')).body.name).toBe('account Ltd');
    expectProblem(await client(sendline.url)('GET', '/api/account'), 401, 'authentication_required');
  });

  it('is renamed by owners and admins only', async () => {
    const renamed = await owner.api('PATCH', '/api/account', { body: { name: 'Renamed Ltd' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Renamed Ltd');
    expect((await owner.api('GET', '/api/auth/me')).body.account.name).toBe('Renamed Ltd');
    const admin = await addUser(owner.api, 'admin');
    expect((await admin.api('PATCH', '/api/account', { body: { name: 'By the admin' } })).body.name).toBe('By the admin');

    const member = await addUser(owner.api, 'member');
    expectProblem(await member.api('PATCH', '/api/account', { body: { name: 'By a member' } }), 403, 'insufficient_role');
    const { api: keyed } = await newApiKey(owner, sendline.url, { scopes: ['read', 'write'] });
    expectProblem(await keyed('PATCH', '/api/account', { body: { name: 'By a key' } }), 403, 'session_required');
    expect((await owner.api('GET', '/api/account')).body.name).toBe('By the admin');
  });

  it('keeps a default time zone, in its canonical case, and refuses a name that is no zone', async () => {
    const set = await owner.api('PATCH', '/api/account', { body: { timezone: 'america/new_york' } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.timezone).toBe('America/New_York');
    for (const timezone of ['Mars/Olympus', '+02:00', '']) {
      const res = await owner.api('PATCH', '/api/account', { body: { timezone } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer).toBe('/timezone');
    }
    expect((await owner.api('GET', '/api/account')).body.timezone).toBe('America/New_York');
    const member = await addUser(owner.api, 'member');
    expectProblem(await member.api('PATCH', '/api/account', { body: { timezone: 'Europe/Paris' } }), 403, 'insufficient_role');
    await owner.api('PATCH', '/api/account', { body: { timezone: 'UTC' } });
  });

  it('refuses a bad name with the field at fault, and changes nothing', async () => {
    for (const body of [{ name: '' }, { name: 'x'.repeat(201) }, { name: 42 }, { name: 'ok', plan: 'enterprise' }]) {
      const res = await owner.api('PATCH', '/api/account', { body });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.length).toBeGreaterThan(0);
    }
    const before = (await owner.api('GET', '/api/account')).body;
    expect((await owner.api('PATCH', '/api/account', { body: {} })).body).toEqual(before);
  });

  it('of another account is neither read nor renamed', async () => {
    const other = await newAccount(sendline.url, 'other');
    await other.api('PATCH', '/api/account', { body: { name: 'Other renamed' } });
    expect((await owner.api('GET', '/api/account')).body.id).toBe(owner.accountId);
    expect((await owner.api('GET', '/api/account')).body.name).not.toBe('Other renamed');
    expect((await other.api('GET', '/api/account')).body).toMatchObject({ id: other.accountId, name: 'Other renamed' });
  });
});

describe('changing one’s password', () => {
  it('takes the current password, keeps this session and ends every other one', async () => {
    const user = await addUser(owner.api, 'member');
    const elsewhere = await login(user.email, PASSWORD);
    const change = await user.api('POST', '/api/auth/password', { body: { current_password: PASSWORD, new_password: 'a fresh long password' } });
    expect(change.status).toBe(204);
    expect((await user.api('GET', '/api/auth/me')).status).toBe(200);
    expectProblem(await elsewhere.api('GET', '/api/auth/me'), 401, 'invalid_token');
    expectProblem(await client(sendline.url)('POST', '/api/auth/refresh', { body: { refresh_token: elsewhere.refreshToken } }), 401, 'invalid_token');
    expect((await login(user.email, PASSWORD)).status).toBe(401);
    expect((await login(user.email, 'a fresh long password')).status).toBe(200);
  });

  it('refuses a wrong current password, and counts it as a failed login', async () => {
    const user = await addUser(owner.api, 'member');
    const wrong = await user.api('POST', '/api/auth/password', { body: { current_password: 'not it', new_password: 'a fresh long password' } });
    expectProblem(wrong, 422, 'wrong_password');
    expect(wrong.body.errors).toEqual([{ pointer: '/current_password', detail: 'is not the current password' }]);
    expect((await login(user.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 5; i++)
      await user.api('POST', '/api/auth/password', { body: { current_password: `guess ${i}`, new_password: 'a fresh long password' } });
    // Throttled like the login form: neither a session nor the form guesses faster.
    expectProblem(
      await user.api('POST', '/api/auth/password', { body: { current_password: PASSWORD, new_password: 'a fresh long password' } }),
      429,
      'too_many_login_attempts',
    );
    expectProblem(await client(sendline.url)('POST', '/api/auth/login', { body: { email: user.email, password: PASSWORD } }), 429, 'too_many_login_attempts');
  });

  it('takes a session, a new password of 10 characters or more, and nothing else', async () => {
    const user = await addUser(owner.api, 'member');
    for (const body of [
      { current_password: PASSWORD, new_password: 'short' },
      { current_password: PASSWORD },
      { current_password: PASSWORD, new_password: 'a fresh long password', everywhere: true },
    ]) {
      expectProblem(await user.api('POST', '/api/auth/password', { body }), 400, 'validation_failed');
    }
    const { api: keyed } = await newApiKey(owner, sendline.url, { scopes: ['read', 'write'] });
    expectProblem(
      await keyed('POST', '/api/auth/password', { body: { current_password: 'correct horse battery staple', new_password: 'a fresh long password' } }),
      403,
      'session_required',
    );
    expect((await login(user.email, PASSWORD)).status).toBe(200);
  });
});

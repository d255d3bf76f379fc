import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, expectProblem, newAccount, startTestServer, uniqueEmail, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  owner = await newAccount(sendline.url);
});
afterAll(() => sendline.stop());

const PASSWORD = 'user password 123';

async function addUser(by: TestAccount['api'], role: 'owner' | 'admin' | 'member') {
  const res = await by('POST', '/api/users', { body: { email: uniqueEmail(role), password: PASSWORD, name: role, role } });
  if (res.status !== 201) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  const login = await client(sendline.url)('POST', '/api/auth/login', { body: { email: res.body.email, password: PASSWORD } });
  return { user: res.body, api: client(sendline.url, { authorization: `Bearer ${login.body.token}` }) };
}

describe('users', () => {
  it('owners add users of every role to their own account', async () => {
    const admin = await addUser(owner.api, 'admin');
    expect(admin.user).toMatchObject({ role: 'admin', account_id: owner.accountId });
    expect(admin.user.id).toMatch(/^usr_/);
    expect((await admin.api('GET', '/api/auth/me')).body.user.role).toBe('admin');
  });

  it('lists users with cursor pagination', async () => {
    const account = await newAccount(sendline.url, 'pages');
    for (let i = 0; i < 4; i++) await addUser(account.api, 'member');
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await account.api('GET', `/api/users?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((u: { id: string }) => u.id));
      expect(res.body.has_more).toBe(res.body.next_cursor !== null);
      cursor = res.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expectProblem(await account.api('GET', '/api/users?cursor=garbage'), 400, 'validation_failed');
  });

  it('members read but do not manage', async () => {
    const member = await addUser(owner.api, 'member');
    expect((await member.api('GET', '/api/users')).status).toBe(200);
    expectProblem(await member.api('POST', '/api/users', { body: { email: uniqueEmail(), password: PASSWORD, name: 'x' } }), 403, 'insufficient_role');
    expectProblem(await member.api('PATCH', `/api/users/${owner.userId}`, { body: { name: 'hacked' } }), 403, 'insufficient_role');
    expectProblem(await member.api('PATCH', `/api/users/${member.user.id}`, { body: { role: 'owner' } }), 403, 'insufficient_role');
    // A member may rename themself.
    expect((await member.api('PATCH', `/api/users/${member.user.id}`, { body: { name: 'Me' } })).body.name).toBe('Me');
  });

  it('admins cannot create, change or remove owners', async () => {
    const admin = await addUser(owner.api, 'admin');
    expectProblem(
      await admin.api('POST', '/api/users', { body: { email: uniqueEmail(), password: PASSWORD, name: 'x', role: 'owner' } }),
      403,
      'insufficient_role',
    );
    expectProblem(await admin.api('DELETE', `/api/users/${owner.userId}`), 403, 'insufficient_role');
    const member = await addUser(admin.api, 'member');
    expect((await admin.api('PATCH', `/api/users/${member.user.id}`, { body: { role: 'admin' } })).body.role).toBe('admin');
  });

  it('keeps the last owner', async () => {
    const account = await newAccount(sendline.url, 'solo');
    expectProblem(await account.api('DELETE', `/api/users/${account.userId}`), 409, 'last_owner');
    expectProblem(await account.api('PATCH', `/api/users/${account.userId}`, { body: { role: 'member' } }), 409, 'last_owner');
    const second = await addUser(account.api, 'owner');
    expect((await second.api('DELETE', `/api/users/${account.userId}`)).status).toBe(204);
    expectProblem(await account.api('GET', '/api/auth/me'), 401, 'invalid_token');
  });

  it('keeps the last owner when two owners demote or delete each other at once', async () => {
    const owners = (accountId: string) =>
      sendline.pool.query("select count(*)::int as n from users where account_id = $1 and role = 'owner'", [accountId]).then((r) => r.rows[0].n);
    const moves = [
      (api: TestAccount['api'], id: string) => api('PATCH', `/api/users/${id}`, { body: { role: 'member' } }),
      (api: TestAccount['api'], id: string) => api('DELETE', `/api/users/${id}`),
    ];
    for (let round = 0; round < 12; round++) {
      const account = await newAccount(sendline.url, 'duel');
      const second = await addUser(account.api, 'owner');
      const [first, other] = [moves[round % 2], moves[Math.floor(round / 2) % 2]];
      const answers = await Promise.all([first(account.api, second.user.id), other(second.api, account.userId)]);
      expect(await owners(account.accountId)).toBe(1);
      // One wins; the other is refused: the last owner stays, and a demoted or deleted actor no longer acts as an owner.
      expect(answers.map((a) => a.status).filter((s) => s < 300)).toHaveLength(1);
      for (const refused of answers.filter((a) => a.status >= 300)) expect(['last_owner', 'insufficient_role', 'invalid_token']).toContain(refused.body.code);
    }
  });

  it("a password change ends the user's sessions", async () => {
    const member = await addUser(owner.api, 'member');
    expect((await owner.api('PATCH', `/api/users/${member.user.id}`, { body: { password: 'a brand new password' } })).status).toBe(200);
    expectProblem(await member.api('GET', '/api/auth/me'), 401, 'invalid_token');
    const login = await client(sendline.url)('POST', '/api/auth/login', { body: { email: member.user.email, password: 'a brand new password' } });
    expect(login.status).toBe(200);
  });

  it('refuses a taken email', async () => {
    expectProblem(await owner.api('POST', '/api/users', { body: { email: owner.email, password: PASSWORD, name: 'dup' } }), 409, 'email_taken');
  });

  it('refuses a taken email to all but one of parallel requests', async () => {
    for (let round = 0; round < 5; round++) {
      const email = uniqueEmail('twin');
      const answers = await Promise.all(
        Array.from({ length: 3 }, () => owner.api('POST', '/api/users', { body: { email, password: PASSWORD, name: 'twin' } })),
      );
      expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
      for (const res of answers.filter((a) => a.status !== 201)) expectProblem(res, 409, 'email_taken');
    }
  });
});

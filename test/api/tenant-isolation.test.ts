import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, newApiKey, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let alice: TestAccount;
let bob: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  [alice, bob] = await Promise.all([newAccount(sendline.url, 'alice'), newAccount(sendline.url, 'bob')]);
});
afterAll(() => sendline.stop());

describe("tenant isolation: another account's resources do not exist", () => {
  it('users', async () => {
    const member = await alice.api('POST', '/api/users', { body: { email: uniqueEmail(), password: 'member password', name: 'm' } });
    const id = member.body.id;
    expectProblem(await bob.api('GET', `/api/users/${id}`), 404, 'not_found');
    expectProblem(await bob.api('PATCH', `/api/users/${id}`, { body: { name: 'x' } }), 404, 'not_found');
    expectProblem(await bob.api('DELETE', `/api/users/${id}`), 404, 'not_found');
    const list = await bob.api('GET', '/api/users?limit=500');
    expect(list.body.data.map((u: { id: string }) => u.id)).toEqual([bob.userId]);
    expect((await alice.api('GET', `/api/users/${id}`)).body.name).toBe('m');
  });

  it('API keys', async () => {
    const { key, api } = await newApiKey(alice, sendline.url);
    expectProblem(await bob.api('GET', `/api/api-keys/${key.id}`), 404, 'not_found');
    expectProblem(await bob.api('PATCH', `/api/api-keys/${key.id}`, { body: { name: 'x' } }), 404, 'not_found');
    expectProblem(await bob.api('DELETE', `/api/api-keys/${key.id}`), 404, 'not_found');
    expect((await bob.api('GET', '/api/api-keys')).body.data).toEqual([]);
    // Alice's key still works and still sees Alice.
    expect((await api('GET', '/api/auth/me')).body.account.id).toBe(alice.accountId);
  });

  it('a key acts only for its own account', async () => {
    const { api } = await newApiKey(bob, sendline.url);
    expect((await api('GET', '/api/auth/me')).body.account.id).toBe(bob.accountId);
  });

  it("webhook deliveries: a page of them stays with the endpoint's account", async () => {
    const { body: hook } = await alice.api('POST', '/api/webhooks', { body: { url: 'https://hooks.example/in', events: ['contact.created'] } });
    await alice.api('POST', '/api/contacts', { body: { email: uniqueEmail() } });
    const delivered = await waitFor(async () => {
      const page = await alice.api('GET', `/api/webhooks/${hook.id}/deliveries`);
      return page.body.data.length === 1 && page;
    });
    expect(delivered.status).toBe(200);
    expectProblem(await bob.api('GET', `/api/webhooks/${hook.id}/deliveries`), 404, 'not_found');
  });
});

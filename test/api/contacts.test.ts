import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, newApiKey, startTestServer, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  owner = await newAccount(sendline.url);
});
afterAll(() => sendline.stop());

const create = (account: TestAccount, body: Record<string, unknown>) => account.api('POST', '/api/contacts', { body });

async function eventsOf(accountId: string, type: string) {
  return sendline.orm.em.getConnection().execute('select type, data from events where account_id = ? and type = ? order by seq', [accountId, type]);
}

describe('contacts', () => {
  it('creates a contact with normalised email and answers 201', async () => {
    const res = await create(owner, { email: 'Ada.Lovelace@Example.ORG', first_name: 'Ada', attributes: { plan: 'pro' }, tags: ['vip', 'vip', 'beta'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: 'Ada.Lovelace@example.org',
      first_name: 'Ada',
      last_name: null,
      attributes: { plan: 'pro' },
      tags: ['vip', 'beta'],
      status: 'subscribed',
      status_reason: null,
      status_changed_at: null,
    });
    expect(res.body.id).toMatch(/^ct_/);
    const events = await eventsOf(owner.accountId, 'contact.created');
    expect(events.at(-1)?.data.contact.id).toBe(res.body.id);
  });

  it('answers 409 contact_exists with the existing id, whatever the case', async () => {
    const first = await create(owner, { email: 'dup@example.com' });
    const again = await create(owner, { email: 'DUP@EXAMPLE.COM' });
    expectProblem(again, 409, 'contact_exists');
    expect(again.body.existing_id).toBe(first.body.id);
  });

  it('refuses invalid emails, oversized attributes and unknown statuses', async () => {
    const bad = await create(owner, { email: 'not-an-email', status: 'vip' });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual(['/email', '/status']);
    const big = await create(owner, { email: 'big@example.com', attributes: { blob: 'x'.repeat(17_000) } });
    expectProblem(big, 400, 'validation_failed');
    expect(big.body.errors[0].pointer).toBe('/attributes');
    expectProblem(await owner.api('GET', '/api/contacts/ct_nope'), 404, 'not_found');
  });

  it('holds every address to the rule imports hold it to', async () => {
    for (const email of ['c@d', 'double..dot@example.com', 'a@-example.com', 'a b@example.com']) {
      const refused = await create(owner, { email });
      expectProblem(refused, 400, 'validation_failed');
      expect(refused.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/email']);
      const imported = await owner.api('POST', '/api/contacts/import', { body: { contacts: [{ email }] } });
      expect(
        imported.body.errors.map((e: { code: string }) => e.code),
        email,
      ).toEqual(['invalid_email']);
    }
    expect((await create(owner, { email: "o'brien+news@mail.example.co.uk" })).status).toBe(201);
  });

  it('PATCH merges attributes and changes only what it names', async () => {
    const { body: c } = await create(owner, { email: 'patch@example.com', first_name: 'P', attributes: { a: 1, b: 2 }, tags: ['t'] });
    const res = await owner.api('PATCH', `/api/contacts/${c.id}`, { body: { last_name: 'Q', attributes: { b: null, c: 3 } } });
    expect(res.body).toMatchObject({ first_name: 'P', last_name: 'Q', attributes: { a: 1, c: 3 }, tags: ['t'] });
    const [updated] = (await eventsOf(owner.accountId, 'contact.updated')).filter((e: any) => e.data.contact.id === c.id);
    expect(updated.data.changed.sort()).toEqual(['attributes', 'last_name']);
  });

  it('PUT replaces the whole record and keeps the status', async () => {
    const { body: c } = await create(owner, { email: 'put@example.com', first_name: 'P', attributes: { a: 1 }, tags: ['t'], status: 'unsubscribed' });
    const res = await owner.api('PUT', `/api/contacts/${c.id}`, { body: { email: 'put2@example.com' } });
    expect(res.body).toMatchObject({ email: 'put2@example.com', first_name: null, attributes: {}, tags: [], status: 'unsubscribed' });
  });

  it('changing the email to a taken one answers 409', async () => {
    const { body: a } = await create(owner, { email: 'taken-a@example.com' });
    const { body: b } = await create(owner, { email: 'taken-b@example.com' });
    const res = await owner.api('PATCH', `/api/contacts/${b.id}`, { body: { email: 'Taken-A@example.com' } });
    expectProblem(res, 409, 'contact_exists');
    expect(res.body.existing_id).toBe(a.id);
  });

  it('suppression is recorded; resubscribing takes an explicit reason', async () => {
    const { body: c } = await create(owner, { email: 'supp@example.com' });
    const off = await owner.api('PATCH', `/api/contacts/${c.id}`, { body: { status: 'unsubscribed', status_reason: 'asked by phone' } });
    expect(off.body).toMatchObject({ status: 'unsubscribed', status_reason: 'asked by phone' });
    expect(Date.parse(off.body.status_changed_at)).toBeGreaterThan(Date.now() - 60_000);
    const suppressed = (await eventsOf(owner.accountId, 'contact.suppressed')).filter((e: any) => e.data.contact_id === c.id);
    expect(suppressed.map((e: any) => e.data)).toEqual([{ contact_id: c.id, email: 'supp@example.com', status: 'unsubscribed', reason: 'asked by phone' }]);

    const silent = await owner.api('PATCH', `/api/contacts/${c.id}`, { body: { status: 'subscribed' } });
    expectProblem(silent, 400, 'validation_failed');
    expect(silent.body.errors[0].pointer).toBe('/status_reason');
    expect((await owner.api('GET', `/api/contacts/${c.id}`)).body.status).toBe('unsubscribed');

    const back = await owner.api('PATCH', `/api/contacts/${c.id}`, { body: { status: 'subscribed', status_reason: 'opted in again on the website' } });
    expect(back.body).toMatchObject({ status: 'subscribed', status_reason: 'opted in again on the website' });
    const subscribed = (await eventsOf(owner.accountId, 'contact.subscribed')).filter((e: any) => e.data.contact_id === c.id);
    expect(subscribed.map((e: any) => e.data.previous_status)).toEqual(['unsubscribed']);
  });

  it('DELETE removes the contact and its personal data', async () => {
    const { body: c } = await create(owner, { email: 'gone@example.com', first_name: 'Gone' });
    expect((await owner.api('DELETE', `/api/contacts/${c.id}`)).status).toBe(204);
    expectProblem(await owner.api('GET', `/api/contacts/${c.id}`), 404, 'not_found');
    const rows = await sendline.orm.em.getConnection().execute("select count(*)::int as n from contacts where email = 'gone@example.com'");
    expect(rows[0].n).toBe(0);
    const deleted = (await eventsOf(owner.accountId, 'contact.deleted')).map((e: any) => e.data);
    expect(deleted).toContainEqual({ contact_id: c.id });
    expect(JSON.stringify(deleted)).not.toContain('gone@example.com');
    // The address can be added again.
    expect((await create(owner, { email: 'gone@example.com' })).status).toBe(201);
  });
});

describe('listing contacts', () => {
  let account: TestAccount;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    account = await newAccount(sendline.url, 'lister');
    const people = [
      { email: 'alice@alpha.com', first_name: 'Alice', last_name: 'Archer', tags: ['vip'] },
      { email: 'bob@beta.com', first_name: 'Bob', last_name: 'Baker', tags: ['vip', 'beta'] },
      { email: 'carol@alpha.com', first_name: 'Carol', last_name: 'Cook', status: 'bounced' },
      { email: 'dave_x@delta.com', first_name: 'Dave', last_name: 'Diver', tags: ['beta'] },
      { email: 'erin@echo.com', first_name: 'Erin', last_name: 'Smith%' },
    ];
    for (const person of people) ids[person.first_name] = (await create(account, person)).body.id;
  });

  const list = async (query: string) => {
    const res = await account.api('GET', `/api/contacts?${query}`);
    expect(res.status).toBe(200);
    return res.body.data.map((c: { first_name: string }) => c.first_name);
  };

  it('filters by status, tag, email, q and creation time', async () => {
    expect(await list('status=bounced')).toEqual(['Carol']);
    expect(await list('tag=vip')).toEqual(['Alice', 'Bob']);
    expect(await list('tag=beta&status=subscribed')).toEqual(['Bob', 'Dave']);
    // email: a prefix of the address; q: a prefix of the email, first or last name.
    expect(await list('email=ALICE%40')).toEqual(['Alice']);
    expect(await list('email=alpha.com')).toEqual([]);
    expect(await list('email=dave_')).toEqual(['Dave']);
    expect(await list('email=dave%25')).toEqual([]);
    expect(await list('q=cook')).toEqual(['Carol']);
    expect(await list('q=c')).toEqual(['Carol']);
    expect(await list('q=b')).toEqual(['Bob']);
    expect(await list('q=smith%25')).toEqual(['Erin']);
    expect(await list('q=%25')).toEqual([]);
    const { body: carol } = await account.api('GET', `/api/contacts/${ids.Carol}`);
    expect(await list(`created_after=${encodeURIComponent(carol.created_at)}`)).toEqual(['Dave', 'Erin']);
    expect(await list(`created_before=${encodeURIComponent(carol.created_at)}`)).toEqual(['Alice', 'Bob']);
  });

  it('pages with a stable cursor in creation order', async () => {
    const seen: string[] = [];
    let cursor = '';
    for (;;) {
      const res = await account.api('GET', `/api/contacts?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...res.body.data.map((c: { first_name: string }) => c.first_name));
      if (!res.body.has_more) break;
      cursor = res.body.next_cursor;
    }
    expect(seen).toEqual(['Alice', 'Bob', 'Carol', 'Dave', 'Erin']);
  });

  it('validates filters', async () => {
    expectProblem(await account.api('GET', '/api/contacts?status=vip'), 400, 'validation_failed');
    expectProblem(await account.api('GET', '/api/contacts?created_after=yesterday'), 400, 'validation_failed');
  });
});

describe('contacts across accounts', () => {
  it('are invisible, unchangeable and undeletable from another account', async () => {
    const other = await newAccount(sendline.url, 'other');
    const { body: c } = await create(owner, { email: 'mine@example.com' });
    expectProblem(await other.api('GET', `/api/contacts/${c.id}`), 404, 'not_found');
    expectProblem(await other.api('PATCH', `/api/contacts/${c.id}`, { body: { first_name: 'x' } }), 404, 'not_found');
    expectProblem(await other.api('PUT', `/api/contacts/${c.id}`, { body: { email: 'x@example.com' } }), 404, 'not_found');
    expectProblem(await other.api('DELETE', `/api/contacts/${c.id}`), 404, 'not_found');
    expect((await other.api('GET', '/api/contacts?email=mine')).body.data).toEqual([]);
    // The same email is free in another account.
    expect((await create(other, { email: 'mine@example.com' })).status).toBe(201);
  });

  it('work with an API key', async () => {
    const { api } = await newApiKey(owner, sendline.url);
    const res = await api('POST', '/api/contacts', { body: { email: 'bykey@example.com' } });
    expect(res.status).toBe(201);
    expect((await api('GET', `/api/contacts/${res.body.id}`)).body.email).toBe('bykey@example.com');
  });
});

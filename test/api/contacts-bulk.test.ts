import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, newApiKey, startTestServer, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;
let other: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  [owner, other] = await Promise.all([newAccount(sendline.url), newAccount(sendline.url, 'other')]);
});
afterAll(() => sendline.stop());

const importRows = (account: TestAccount, contacts: Record<string, unknown>[]) => account.api('POST', '/api/contacts/import', { body: { contacts } });
const bulk = (account: TestAccount, body: Record<string, unknown>) => account.api('POST', '/api/contacts/bulk', { body });
const count = async (account: TestAccount, query: Record<string, string> = {}) =>
  (await account.api('GET', `/api/contacts/count?${new URLSearchParams(query).toString()}`)).body;

async function emails(account: TestAccount, query: Record<string, string>): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page++) {
    const res = await account.api('GET', `/api/contacts?${new URLSearchParams({ ...query, limit: '2', ...(cursor ? { cursor } : {}) }).toString()}`);
    expect(res.status).toBe(200);
    seen.push(...res.body.data.map((c: { email: string }) => c.email));
    if (!res.body.next_cursor) return seen;
    cursor = res.body.next_cursor;
  }
  throw new Error('too many pages');
}

describe('sorting contacts', () => {
  it('pages by email either way, and newest first, each through its own cursors', async () => {
    const account = await newAccount(sendline.url, 'sorter');
    for (const email of ['carol@example.com', 'Alice@example.com', 'eve@example.com', 'bob@example.com', 'dave@example.com']) {
      expect((await account.api('POST', '/api/contacts', { body: { email, tags: ['s'] } })).status).toBe(201);
    }
    const byEmail = ['Alice@example.com', 'bob@example.com', 'carol@example.com', 'dave@example.com', 'eve@example.com'];
    expect(await emails(account, { sort: 'email' })).toEqual(byEmail);
    expect(await emails(account, { sort: '-email' })).toEqual([...byEmail].reverse());
    const oldest = await emails(account, {});
    expect(oldest).toEqual(['carol@example.com', 'Alice@example.com', 'eve@example.com', 'bob@example.com', 'dave@example.com']);
    expect(await emails(account, { sort: 'created_at' })).toEqual(oldest);
    expect(await emails(account, { sort: '-created_at', tag: 's' })).toEqual([...oldest].reverse());
  });

  it('refuses a cursor of another order, and an unknown order', async () => {
    await importRows(owner, [{ email: 'a1@example.com' }, { email: 'a2@example.com' }, { email: 'a3@example.com' }]);
    const byEmail = await owner.api('GET', '/api/contacts?sort=email&limit=1');
    const byDate = await owner.api('GET', '/api/contacts?limit=1');
    const mixed = await owner.api('GET', `/api/contacts?sort=-email&cursor=${byEmail.body.next_cursor}`);
    expectProblem(mixed, 400, 'validation_failed');
    expect(mixed.body.errors[0].pointer).toBe('query.cursor');
    expect(mixed.body.errors[0].detail).toMatch(/another order/);
    expectProblem(await owner.api('GET', `/api/contacts?sort=email&cursor=${byDate.body.next_cursor}`), 400, 'validation_failed');
    expectProblem(await owner.api('GET', `/api/contacts?cursor=${byEmail.body.next_cursor}`), 400, 'validation_failed');
    const unknown = await owner.api('GET', '/api/contacts?sort=first_name');
    expectProblem(unknown, 400, 'validation_failed');
    expect(unknown.body.errors[0].pointer).toBe('query.sort');
  });

  it('orders by email on its index', async () => {
    const db = sendline.orm.em.getConnection();
    const [{ 'QUERY PLAN': plan }] = await db.execute(
      `explain (format json) select id from contacts where account_id = ? and lower(email) ~>~ 'b' order by lower(email) using ~<~ limit 51`,
      [owner.accountId],
    );
    expect(JSON.stringify(plan)).toContain('contacts_account_email');
    expect(JSON.stringify(plan)).not.toContain('"Sort"');
  });
});

describe('counting contacts', () => {
  it('counts what the filters match, exactly, for this account only', async () => {
    const account = await newAccount(sendline.url, 'counter');
    await importRows(account, [
      { email: 'x1@example.com', tags: ['vip'] },
      { email: 'x2@example.com', tags: ['vip'], status: 'unsubscribed' },
      { email: 'y1@example.com' },
    ]);
    expect(await count(account)).toEqual({ count: 3, exact: true });
    expect(await count(account, { status: 'unsubscribed' })).toEqual({ count: 1, exact: true });
    expect(await count(account, { tag: 'vip' })).toEqual({ count: 2, exact: true });
    expect(await count(account, { q: 'x', status: 'subscribed' })).toEqual({ count: 1, exact: true });
    expect(await count(other, { tag: 'vip' })).toEqual({ count: 0, exact: true });
    expectProblem(await account.api('GET', '/api/contacts/count?status=vip'), 400, 'validation_failed');
  });
});

describe('bulk actions', () => {
  it('tags, untags and deletes a selection, leaving other accounts alone', async () => {
    const mine = await importRows(owner, [{ email: 'sel1@example.com' }, { email: 'sel2@example.com' }]);
    expect(mine.body.created).toBe(2);
    const theirs = await other.api('POST', '/api/contacts', { body: { email: 'theirs@example.com' } });
    const ids = (await owner.api('GET', '/api/contacts?email=sel')).body.data.map((c: { id: string }) => c.id);
    expect(await bulk(owner, { action: 'tag', tags: ['picked', ' picked '], contact_ids: [...ids, theirs.body.id, 'ct_nope'] })).toMatchObject({
      status: 200,
      body: { matched: 2, changed: 2 },
    });
    expect((await bulk(owner, { action: 'tag', tags: ['picked'], contact_ids: ids })).body).toEqual({ matched: 2, changed: 0 });
    expect((await other.api('GET', `/api/contacts/${theirs.body.id}`)).body.tags).toEqual([]);
    expect((await bulk(owner, { action: 'untag', tags: ['picked'], contact_ids: [ids[0]] })).body).toEqual({ matched: 1, changed: 1 });
    expect((await bulk(other, { action: 'delete', contact_ids: ids })).body).toEqual({ matched: 0, changed: 0 });
    expect((await bulk(owner, { action: 'delete', contact_ids: [ids[0], theirs.body.id] })).body).toEqual({ matched: 1, changed: 1 });
    expectProblem(await owner.api('GET', `/api/contacts/${ids[0]}`), 404, 'not_found');
    expect((await other.api('GET', `/api/contacts/${theirs.body.id}`)).status).toBe(200);
    const [deleted] = await sendline.orm.em
      .getConnection()
      .execute(`select data from events where account_id = ? and type = 'contact.deleted' order by seq desc limit 1`, [owner.accountId]);
    expect(deleted.data).toEqual({ contact_id: ids[0] });
  });

  it('acts on every contact a filter matches, a thousand at a time', async () => {
    const account = await newAccount(sendline.url, 'many');
    const rows = Array.from({ length: 2_300 }, (_, i) => ({ email: `m${i}@example.com`, tags: i % 2 ? ['odd'] : ['even'] }));
    expect((await importRows(account, rows)).body.created).toBe(2_300);
    const list = await account.api('POST', '/api/lists', { body: { name: 'Odd ones' } });
    expect((await bulk(account, { action: 'add_to_list', list_id: list.body.id, filter: { tag: 'odd' } })).body).toEqual({ matched: 1_150, changed: 1_150 });
    expect((await account.api('GET', `/api/lists/${list.body.id}`)).body.members.subscribed).toBe(1_150);
    expect((await bulk(account, { action: 'tag', tags: ['late'], filter: { tag: 'odd', q: 'm1' } })).body.changed).toBe(556);
    expect((await bulk(account, { action: 'remove_from_list', list_id: list.body.id, filter: { tag: 'late' } })).body).toEqual({ matched: 556, changed: 556 });
    expect((await bulk(account, { action: 'delete', filter: { tag: 'even' } })).body).toEqual({ matched: 1_150, changed: 1_150 });
    expect(await count(account)).toEqual({ count: 1_150, exact: true });
    expect((await bulk(account, { action: 'untag', tags: ['odd'], filter: {} })).body).toEqual({ matched: 1_150, changed: 1_150 });
    expect(await count(account, { tag: 'odd' })).toEqual({ count: 0, exact: true });
    expect(await count(owner, { tag: 'odd' })).toEqual({ count: 0, exact: true });
  });

  it('refuses requests that do not fit their action, and read-only keys', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'tag', contact_ids: ['ct_x'] }, '/tags'],
      [{ action: 'delete', tags: ['x'], filter: {} }, '/tags'],
      [{ action: 'add_to_list', filter: {} }, '/list_id'],
      [{ action: 'add_to_list', list_id: 'lst_nope', filter: {} }, '/list_id'],
      [{ action: 'delete', list_id: 'lst_nope', filter: {} }, '/list_id'],
      [{ action: 'delete' }, '/contact_ids'],
      [{ action: 'delete', contact_ids: ['ct_x'], filter: {} }, '/filter'],
      [{ action: 'delete', filter: { status: 'gone' } }, '/filter/status'],
      [{ action: 'explode', filter: {} }, '/action'],
      [{ action: 'delete', contact_ids: Array.from({ length: 10_001 }, (_, i) => `ct_${i}`) }, '/contact_ids'],
    ];
    for (const [body, pointer] of cases) {
      const res = await bulk(owner, body);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer, JSON.stringify(body).slice(0, 80)).toBe(pointer);
    }
    const { api } = await newApiKey(owner, sendline.url, { scopes: ['read'] });
    expectProblem(await api('POST', '/api/contacts/bulk', { body: { action: 'delete', filter: {} } }), 403, 'insufficient_scope');
    expect((await api('GET', '/api/contacts/count')).status).toBe(200);
  });
});

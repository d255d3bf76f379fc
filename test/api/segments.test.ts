import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, newApiKey, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';

let sendline: Sendline;
let sink: SmtpSink;
const PUBLIC_URL = 'https://mail.example.test';
const HUMAN_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    TRACKING_FLUSH_MS: '50',
    TRACKING_MACHINE_OPEN_SECONDS: '0',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

type Rule = Record<string, unknown>;

async function contact(account: TestAccount, body: Record<string, unknown>) {
  const res = await account.api('POST', '/api/contacts', { body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  return res.body as { id: string; email: string };
}

/** The emails the rules match, sorted (the sample holds them all: accounts here are small). */
async function matching(account: TestAccount, rules: Rule): Promise<string[]> {
  const res = await account.api('POST', '/api/segments/preview', { body: { rules, sample_size: 100 } });
  if (res.status !== 200) throw new Error(`${JSON.stringify(rules)}: ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body.count).toBe(res.body.sample.length);
  return res.body.sample.map((c: { email: string }) => c.email.split('@')[0]).sort();
}

const where = (field: string, operator: string, value?: unknown): Rule => (value === undefined ? { field, operator } : { field, operator, value });

describe('custom fields', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await newAccount(sendline.url, 'fields');
  });

  it('are defined, listed, changed and deleted; a key is defined once', async () => {
    const plan = await owner.api('POST', '/api/fields', { body: { key: 'plan', label: 'Plan', type: 'choice', options: ['free', 'pro'] } });
    expect(plan.status).toBe(201);
    expect(plan.body).toMatchObject({ key: 'plan', type: 'choice', options: ['free', 'pro'] });
    expect(plan.body.id).toMatch(/^fld_/);
    expectProblem(await owner.api('POST', '/api/fields', { body: { key: 'plan', label: 'Again', type: 'text' } }), 409, 'field_exists');
    expectProblem(await owner.api('POST', '/api/fields', { body: { key: 'tier', label: 'Tier', type: 'choice' } }), 400, 'validation_failed');
    expectProblem(await owner.api('POST', '/api/fields', { body: { key: 'age', label: 'Age', type: 'number', options: ['x'] } }), 400, 'validation_failed');
    expectProblem(await owner.api('POST', '/api/fields', { body: { key: 'Bad Key', label: 'x', type: 'text' } }), 400, 'validation_failed');
    const changed = await owner.api('PATCH', `/api/fields/${plan.body.id}`, { body: { options: ['free', 'pro', 'team'] } });
    expect(changed.body.options).toEqual(['free', 'pro', 'team']);
    const temp = await owner.api('POST', '/api/fields', { body: { key: 'temp', label: 'Temp', type: 'boolean' } });
    expect((await owner.api('GET', '/api/fields')).body.data.map((f: { key: string }) => f.key)).toEqual(['plan', 'temp']);
    expect((await owner.api('GET', `/api/fields/${temp.body.id}`)).body.label).toBe('Temp');
    expect((await owner.api('DELETE', `/api/fields/${temp.body.id}`)).status).toBe(204);
    expectProblem(await owner.api('GET', `/api/fields/${temp.body.id}`), 404, 'not_found');
  });

  it('check contact writes: a wrong value is a 400 pointing at /attributes/<key>; free attributes stay free', async () => {
    for (const [key, type] of [
      ['age', 'number'],
      ['birthday', 'date'],
      ['vip', 'boolean'],
      ['nickname', 'text'],
    ]) {
      expect((await owner.api('POST', '/api/fields', { body: { key, label: key, type } })).status).toBe(201);
    }
    for (const [key, value] of [
      ['age', '42'],
      ['birthday', '2026-02-30'],
      ['birthday', '30/01/2026'],
      ['vip', 'yes'],
      ['nickname', 7],
      ['plan', 'gold'],
    ] as const) {
      const res = await owner.api('POST', '/api/contacts', { body: { email: `bad-${key}@example.com`, attributes: { [key]: value, free: 'anything' } } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ pointer: `/attributes/${key}`, detail: expect.stringContaining(key) }]);
    }
    const good = await owner.api('POST', '/api/contacts', {
      body: { email: 'good@example.com', attributes: { age: 42, birthday: '1990-12-10', vip: true, nickname: 'G', plan: 'pro', free: [1, 2] } },
    });
    expect(good.status).toBe(201);
    const patched = await owner.api('PATCH', `/api/contacts/${good.body.id}`, { body: { attributes: { age: 'old' } } });
    expectProblem(patched, 400, 'validation_failed');
    expect(patched.body.errors[0].pointer).toBe('/attributes/age');
    const put = await owner.api('PUT', `/api/contacts/${good.body.id}`, { body: { email: 'good@example.com', attributes: { vip: 1 } } });
    expect(put.body.errors[0].pointer).toBe('/attributes/vip');
    expect((await owner.api('PATCH', `/api/contacts/${good.body.id}`, { body: { attributes: { age: null, other: 'x' } } })).status).toBe(200);
    expect((await owner.api('GET', `/api/contacts/${good.body.id}`)).body.attributes).toEqual({
      birthday: '1990-12-10',
      vip: true,
      nickname: 'G',
      plan: 'pro',
      free: [1, 2],
      other: 'x',
    });
  });

  it('check import rows: a wrong value fails its row with invalid_field; CSV text becomes numbers and booleans', async () => {
    const json = await owner.api('POST', '/api/contacts/import', {
      body: {
        contacts: [
          { email: 'imp-ok@example.com', attributes: { age: 30, plan: 'team' } },
          { email: 'imp-bad@example.com', attributes: { age: 'thirty' } },
        ],
      },
    });
    expect(json.body).toMatchObject({ created: 1, failed: 1, errors: [{ row: 2, code: 'invalid_field', email: 'imp-bad@example.com' }] });
    const csv =
      'email,age,vip,birthday,plan,colour\ncsv-1@example.com, 41 ,Yes,2000-01-31,free,red\ncsv-2@example.com,x,no,,,blue\ncsv-3@example.com,,,2000-13-01,,\n';
    const upload = await owner.api('POST', '/api/contacts/import', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(upload.status).toBe(202);
    const done = await waitFor(async () => {
      const res = await owner.api('GET', `/api/contacts/import/${upload.body.id}`);
      return res.body.status === 'completed' && res.body;
    });
    expect(done).toMatchObject({ created: 1, failed: 2 });
    expect(done.errors.map((e: { row: number; code: string }) => [e.row, e.code])).toEqual([
      [2, 'invalid_field'],
      [3, 'invalid_field'],
    ]);
    const [row] = await sql("select attributes from contacts where account_id = $1 and email = 'csv-1@example.com'", [owner.accountId]);
    expect(row.attributes).toEqual({ age: 41, vip: true, birthday: '2000-01-31', plan: 'free', colour: 'red' });
  });
});

describe('segment operators', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await newAccount(sendline.url, 'operators');
    for (const [key, type, options] of [
      ['plan', 'choice', ['free', 'pro', 'team']],
      ['score', 'number'],
      ['renews', 'date'],
      ['beta', 'boolean'],
      ['city', 'text'],
    ] as const) {
      await owner.api('POST', '/api/fields', { body: { key, label: key, type, ...(options ? { options } : {}) } });
    }
    await contact(owner, {
      email: 'ada@math.example',
      first_name: 'Ada',
      last_name: 'Lovelace',
      tags: ['vip', 'beta'],
      attributes: { plan: 'pro', score: 90, renews: '2026-01-15', beta: true, city: 'London', shoe: 38 },
    });
    await contact(owner, {
      email: 'grace@navy.example',
      first_name: 'Grace',
      last_name: 'Hopper',
      tags: ['vip'],
      attributes: { plan: 'team', score: 75.5, renews: '2026-06-01', beta: false, city: 'New York' },
    });
    await contact(owner, { email: 'alan@math.example', first_name: 'Alan', tags: [], attributes: { plan: 'free', score: 40, city: 'london' } });
    await contact(owner, { email: 'edsger@cs.example', status: 'unsubscribed', tags: ['old'], attributes: {} });
    // One contact made "long ago", with a score stored as text before the field existed: neither is writable through the API.
    const { id } = await contact(owner, { email: 'old@cs.example', first_name: "O'Brien" });
    await sql(`update contacts set created_at = now() - interval '40 days', attributes = '{"score": "12"}' where id = $1`, [id]);
  });

  const all = ['ada', 'alan', 'edsger', 'grace', 'old'];

  it('text: equals (case-insensitive), not_equals, in, not_in, contains, not_contains, starts_with, is_set, is_not_set', async () => {
    expect(await matching(owner, where('email', 'equals', 'ADA@math.example'))).toEqual(['ada']);
    expect(await matching(owner, where('first_name', 'not_equals', 'ada'))).toEqual(['alan', 'edsger', 'grace', 'old']);
    expect(await matching(owner, where('last_name', 'in', ['hopper', 'LOVELACE']))).toEqual(['ada', 'grace']);
    expect(await matching(owner, where('last_name', 'not_in', ['hopper']))).toEqual(['ada', 'alan', 'edsger', 'old']);
    expect(await matching(owner, where('email', 'contains', '@MATH.'))).toEqual(['ada', 'alan']);
    expect(await matching(owner, where('email', 'not_contains', 'math'))).toEqual(['edsger', 'grace', 'old']);
    expect(await matching(owner, where('email', 'starts_with', 'a'))).toEqual(['ada', 'alan']);
    expect(await matching(owner, where('first_name', 'starts_with', '%'))).toEqual([]);
    expect(await matching(owner, where('last_name', 'is_set'))).toEqual(['ada', 'grace']);
    expect(await matching(owner, where('last_name', 'is_not_set'))).toEqual(['alan', 'edsger', 'old']);
    expect(await matching(owner, where('attributes.city', 'equals', 'LONDON'))).toEqual(['ada', 'alan']);
    expect(await matching(owner, where('attributes.city', 'contains', 'york'))).toEqual(['grace']);
    expect(await matching(owner, where('attributes.city', 'is_not_set'))).toEqual(['edsger', 'old']);
  });

  it('status, and tags: contains, not_contains, in, not_in, is_set, is_not_set', async () => {
    expect(await matching(owner, where('status', 'equals', 'unsubscribed'))).toEqual(['edsger']);
    expect(await matching(owner, where('status', 'not_equals', 'subscribed'))).toEqual(['edsger']);
    expect(await matching(owner, where('status', 'in', ['subscribed', 'bounced']))).toEqual(['ada', 'alan', 'grace', 'old']);
    expect(await matching(owner, where('status', 'not_in', ['subscribed']))).toEqual(['edsger']);
    expect(await matching(owner, where('tags', 'contains', 'vip'))).toEqual(['ada', 'grace']);
    expect(await matching(owner, where('tags', 'not_contains', 'vip'))).toEqual(['alan', 'edsger', 'old']);
    expect(await matching(owner, where('tags', 'in', ['beta', 'old']))).toEqual(['ada', 'edsger']);
    expect(await matching(owner, where('tags', 'not_in', ['beta', 'old']))).toEqual(['alan', 'grace', 'old']);
    expect(await matching(owner, where('tags', 'is_set'))).toEqual(['ada', 'edsger', 'grace']);
    expect(await matching(owner, where('tags', 'is_not_set'))).toEqual(['alan', 'old']);
  });

  it('numbers: equals, not_equals, in, not_in, greater_than, less_than, between, is_set, is_not_set', async () => {
    expect(await matching(owner, where('attributes.score', 'equals', 90))).toEqual(['ada']);
    expect(await matching(owner, where('attributes.score', 'not_equals', 90))).toEqual(['alan', 'edsger', 'grace', 'old']);
    expect(await matching(owner, where('attributes.score', 'in', [40, 75.5]))).toEqual(['alan', 'grace']);
    expect(await matching(owner, where('attributes.score', 'not_in', [40, 75.5]))).toEqual(['ada', 'edsger', 'old']);
    expect(await matching(owner, where('attributes.score', 'greater_than', 75.5))).toEqual(['ada']);
    // The text "12" stored before the field existed is no number: it matches no comparison.
    expect(await matching(owner, where('attributes.score', 'less_than', 75.5))).toEqual(['alan']);
    expect(await matching(owner, where('attributes.score', 'between', [40, 75.5]))).toEqual(['alan', 'grace']);
    expect(await matching(owner, where('attributes.score', 'is_set'))).toEqual(['ada', 'alan', 'grace', 'old']);
    expect(await matching(owner, where('attributes.score', 'is_not_set'))).toEqual(['edsger']);
    // An attribute no field defines is read as a number when the value is one.
    expect(await matching(owner, where('attributes.shoe', 'greater_than', 37))).toEqual(['ada']);
  });

  it('dates: created_at before, after, between, within_last_days; date fields equals, before, after, between, within_last_days, is_set', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
    expect(await matching(owner, where('created_at', 'within_last_days', 30))).toEqual(['ada', 'alan', 'edsger', 'grace']);
    expect(await matching(owner, where('created_at', 'before', monthAgo))).toEqual(['old']);
    expect(await matching(owner, where('created_at', 'after', monthAgo))).toEqual(['ada', 'alan', 'edsger', 'grace']);
    expect(await matching(owner, where('created_at', 'between', ['2000-01-01', today]))).toEqual(all);
    expect(await matching(owner, where('created_at', 'before', '2000-01-01'))).toEqual([]);
    expect(await matching(owner, where('attributes.renews', 'equals', '2026-01-15'))).toEqual(['ada']);
    expect(await matching(owner, where('attributes.renews', 'before', '2026-06-01'))).toEqual(['ada']);
    expect(await matching(owner, where('attributes.renews', 'after', '2026-01-15'))).toEqual(['grace']);
    expect(await matching(owner, where('attributes.renews', 'between', ['2026-01-15', '2026-06-01']))).toEqual(['ada', 'grace']);
    expect(await matching(owner, where('attributes.renews', 'is_set'))).toEqual(['ada', 'grace']);
    const within = await matching(owner, where('attributes.renews', 'within_last_days', 36_500));
    expect(within).toEqual(['ada', 'grace'].filter((n) => (n === 'ada' ? '2026-01-15' : '2026-06-01') <= today));
  });

  it('booleans and choices: equals, not_equals, in, not_in, is_set, is_not_set', async () => {
    expect(await matching(owner, where('attributes.beta', 'equals', true))).toEqual(['ada']);
    expect(await matching(owner, where('attributes.beta', 'equals', false))).toEqual(['grace']);
    expect(await matching(owner, where('attributes.beta', 'is_not_set'))).toEqual(['alan', 'edsger', 'old']);
    expect(await matching(owner, where('attributes.plan', 'equals', 'pro'))).toEqual(['ada']);
    expect(await matching(owner, where('attributes.plan', 'not_equals', 'pro'))).toEqual(['alan', 'edsger', 'grace', 'old']);
    expect(await matching(owner, where('attributes.plan', 'in', ['pro', 'team']))).toEqual(['ada', 'grace']);
    expect(await matching(owner, where('attributes.plan', 'not_in', ['free']))).toEqual(['ada', 'edsger', 'grace', 'old']);
    expect(await matching(owner, where('attributes.plan', 'is_set'))).toEqual(['ada', 'alan', 'grace']);
    const notOption = await owner.api('POST', '/api/segments/preview', { body: { rules: where('attributes.plan', 'equals', 'gold') } });
    expectProblem(notOption, 400, 'validation_failed');
    expect(notOption.body.errors[0].pointer).toBe('/rules/value');
  });

  it("list membership: member, not_member, with and without a member status; another account's list is a 400", async () => {
    const ids = Object.fromEntries(
      (await owner.api('GET', '/api/contacts?limit=100')).body.data.map((c: { id: string; email: string }) => [c.email.split('@')[0], c.id]),
    );
    const readers = await owner.api('POST', '/api/lists', { body: { name: 'Readers' } });
    const other = await owner.api('POST', '/api/lists', { body: { name: 'Empty' } });
    await owner.api('POST', `/api/lists/${readers.body.id}/members`, { body: { contact_ids: [ids.ada, ids.grace] } });
    await owner.api('POST', `/api/lists/${readers.body.id}/members`, { body: { contact_ids: [ids.alan], status: 'unsubscribed' } });
    const on = (membership: string, status?: string): Rule => ({ membership, list_id: readers.body.id, ...(status ? { list_status: status } : {}) });
    expect(await matching(owner, on('member'))).toEqual(['ada', 'alan', 'grace']);
    expect(await matching(owner, on('member', 'subscribed'))).toEqual(['ada', 'grace']);
    expect(await matching(owner, on('member', 'unsubscribed'))).toEqual(['alan']);
    expect(await matching(owner, on('member', 'unconfirmed'))).toEqual([]);
    expect(await matching(owner, on('not_member'))).toEqual(['edsger', 'old']);
    expect(await matching(owner, on('not_member', 'subscribed'))).toEqual(['alan', 'edsger', 'old']);
    expect(await matching(owner, { membership: 'not_member', list_id: other.body.id })).toEqual(all);
    expect(await matching(owner, { all: [on('member', 'subscribed'), where('tags', 'contains', 'beta')] })).toEqual(['ada']);
    const saved = await owner.api('POST', '/api/segments', { body: { name: 'Readers', rules: on('member', 'subscribed') } });
    expect(saved.status).toBe(201);
    const members = await owner.api('GET', `/api/segments/${saved.body.id}/contacts`);
    expect(members.body.data.map((c: { email: string }) => c.email.split('@')[0])).toEqual(['ada', 'grace']);

    const stranger = await newAccount(sendline.url, 'stranger');
    const theirs = await stranger.api('POST', '/api/lists', { body: { name: 'Theirs' } });
    for (const [rules, pointer] of [
      [{ membership: 'member', list_id: theirs.body.id }, '/rules/list_id'],
      [{ any: [on('member'), { membership: 'not_member', list_id: 'lst_nope' }] }, '/rules/any/1/list_id'],
    ] as const) {
      const res = await owner.api('POST', '/api/segments/preview', { body: { rules } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual([{ pointer, detail: 'no such list' }]);
      expectProblem(await owner.api('POST', '/api/segments', { body: { name: 'x', rules } }), 400, 'validation_failed');
      expectProblem(await owner.api('PATCH', `/api/segments/${saved.body.id}`, { body: { rules } }), 400, 'validation_failed');
    }
    const res = await owner.api('POST', '/api/segments/preview', { body: { rules: { membership: 'member', list_id: readers.body.id, list_status: 'gone' } } });
    expectProblem(res, 400, 'validation_failed');
  });

  it('nest any inside all inside any', async () => {
    const rules = {
      any: [
        { all: [where('tags', 'contains', 'vip'), { any: [where('attributes.city', 'equals', 'london'), where('attributes.score', 'less_than', 80)] }] },
        where('status', 'equals', 'unsubscribed'),
      ],
    };
    expect(await matching(owner, rules)).toEqual(['ada', 'edsger', 'grace']);
    expect(await matching(owner, { all: [rules, where('email', 'contains', 'navy')] })).toEqual(['grace']);
  });

  it('refuse operators a type does not take, unknown fields and bad values, with the pointer of the rule', async () => {
    const cases: [Rule, string][] = [
      [{ all: [where('tags', 'equals', 'vip')] }, '/rules/all/0/operator'],
      [{ all: [where('attributes.score', 'contains', '9')] }, '/rules/all/0/operator'],
      [{ any: [where('email', 'equals', 'a'), where('phone', 'equals', '1')] }, '/rules/any/1/field'],
      [where('attributes.score', 'greater_than', 'ten'), '/rules/value'],
      [where('attributes.score', 'between', [1]), '/rules/value'],
      [where('created_at', 'before', 'yesterday'), '/rules/value'],
      [where('created_at', 'within_last_days', 1.5), '/rules/value'],
      [where('status', 'equals', 'vip'), '/rules/value'],
      [where('attributes.beta', 'equals', 'true'), '/rules/value'],
      [where('email', 'in', ['ok', 5]), '/rules/value/1'],
      [{ field: 'email' }, '/rules/operator'],
      [{ all: [where('email', 'is_set')], any: [where('email', 'is_set')] }, '/rules'],
      [{ engagement: 'opened', at_least: 2 }, '/rules/at_least'],
      [{ engagement: 'opened', field: 'email' }, '/rules/field'],
    ];
    for (const [rules, pointer] of cases) {
      const res = await owner.api('POST', '/api/segments/preview', { body: { rules } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer, JSON.stringify(rules)).toBe(pointer);
    }
  });
});

describe('hostile rules', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await newAccount(sendline.url, 'hostile');
    await contact(owner, { email: 'someone@example.com', first_name: 'Robert' });
  });

  const nest = (depth: number): Rule => (depth === 0 ? where('email', 'is_set') : { all: [nest(depth - 1)] });

  it('answer 400 for deep nesting, too many conditions and huge lists; SQL-ish text is only text', async () => {
    expect(await matching(owner, nest(4))).toEqual(['someone']);
    expectProblem(await owner.api('POST', '/api/segments/preview', { body: { rules: nest(6) } }), 400, 'validation_failed');
    expectProblem(await owner.api('POST', '/api/segments', { body: { name: 'deep', rules: nest(1000) } }), 400, 'validation_failed');
    const many = { any: Array.from({ length: 100 }, () => ({ any: [where('email', 'is_set'), where('email', 'is_set')] })) };
    const tooMany = await owner.api('POST', '/api/segments/preview', { body: { rules: many } });
    expectProblem(tooMany, 400, 'validation_failed');
    expect(tooMany.body.errors[0].pointer).toMatch(/^\/rules\/any\/50\//);
    const huge = await owner.api('POST', '/api/segments/preview', {
      body: {
        rules: where(
          'email',
          'in',
          Array.from({ length: 1001 }, (_, i) => `${i}@x.example`),
        ),
      },
    });
    expectProblem(huge, 400, 'validation_failed');
    const long = await owner.api('POST', '/api/segments/preview', { body: { rules: where('email', 'contains', 'x'.repeat(1001)) } });
    expectProblem(long, 400, 'validation_failed');
    for (const text of ["'; drop table contacts; --", "Robert') or 1=1 --", '%', '_', '\\']) {
      expect(await matching(owner, where('first_name', 'equals', text))).toEqual([]);
      expect(await matching(owner, where('first_name', 'starts_with', text))).toEqual([]);
      expect(await matching(owner, where(`attributes.${text}`, 'is_set'))).toEqual([]);
    }
    expect(await matching(owner, where('first_name', 'contains', 'bert'))).toEqual(['someone']);
    expect((await sql('select count(*)::int as n from contacts where account_id = $1', [owner.accountId]))[0].n).toBe(1);
    for (const rules of [null, [], 'all', { all: 'x' }, { all: [] }, { field: 'email', operator: 'equals', value: { $gt: '' } }]) {
      expect((await owner.api('POST', '/api/segments/preview', { body: { rules } })).status, JSON.stringify(rules)).toBe(400);
    }
  });
});

describe('saved segments', () => {
  it('are created, listed, changed, paged through and deleted', async () => {
    const owner = await newAccount(sendline.url, 'saved');
    for (let i = 0; i < 5; i++) await contact(owner, { email: `m${i}@example.com`, tags: i % 2 ? ['odd'] : ['even'] });
    const created = await owner.api('POST', '/api/segments', { body: { name: 'Even', rules: { all: [where('tags', 'contains', 'even')] } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'Even', description: null, rules: { all: [{ field: 'tags', operator: 'contains', value: 'even' }] } });
    const id = created.body.id;
    expect(id).toMatch(/^seg_/);
    expectProblem(await owner.api('POST', '/api/segments', { body: { name: 'Bad', rules: where('nope', 'equals', 'x') } }), 400, 'validation_failed');
    const first = await owner.api('GET', `/api/segments/${id}/contacts?limit=2`);
    expect(first.body.data.map((c: { email: string }) => c.email)).toEqual(['m0@example.com', 'm2@example.com']);
    expect(first.body.has_more).toBe(true);
    const second = await owner.api('GET', `/api/segments/${id}/contacts?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toMatchObject({ data: [{ email: 'm4@example.com' }], has_more: false, next_cursor: null });
    const changed = await owner.api('PATCH', `/api/segments/${id}`, {
      body: { name: 'Odd', description: 'odd ones', rules: where('tags', 'contains', 'odd') },
    });
    expect(changed.body).toMatchObject({ name: 'Odd', description: 'odd ones' });
    expectProblem(await owner.api('PATCH', `/api/segments/${id}`, { body: { rules: where('tags', 'greater_than', 1) } }), 400, 'validation_failed');
    expect((await owner.api('GET', `/api/segments/${id}/contacts`)).body.data).toHaveLength(2);
    expect((await owner.api('GET', '/api/segments')).body.data.map((s: { id: string }) => s.id)).toEqual([id]);
    expect((await owner.api('GET', `/api/segments/${id}`)).body.name).toBe('Odd');
    expect((await owner.api('DELETE', `/api/segments/${id}`)).status).toBe(204);
    expectProblem(await owner.api('GET', `/api/segments/${id}`), 404, 'not_found');
    expectProblem(await owner.api('GET', `/api/segments/${id}/contacts`), 404, 'not_found');
  });
});

describe('tags as a resource', () => {
  it('are listed with counts, renamed, merged, deleted, and applied in bulk by ids, emails, segment or list', async () => {
    const owner = await newAccount(sendline.url, 'tags');
    const a = await contact(owner, { email: 'a@example.com', tags: ['customer', 'vip'] });
    const b = await contact(owner, { email: 'b@example.com', tags: ['customers'] });
    await contact(owner, { email: 'c@example.com', tags: ['customers', 'customer'] });
    await contact(owner, { email: 'd@example.com', tags: [] });
    const list = await owner.api('GET', '/api/tags?limit=2');
    expect(list.body).toMatchObject({
      data: [
        { name: 'customer', contacts: 2 },
        { name: 'customers', contacts: 2 },
      ],
      has_more: true,
    });
    const rest = await owner.api('GET', `/api/tags?cursor=${list.body.next_cursor}`);
    expect(rest.body).toEqual({ data: [{ name: 'vip', contacts: 1 }], has_more: false, next_cursor: null });
    // Merge: c carries both names and keeps one.
    const merged = await owner.api('PATCH', '/api/tags/customers', { body: { name: 'customer' } });
    expect(merged.body).toEqual({ name: 'customer', contacts: 3 });
    expect((await owner.api('GET', '/api/contacts?email=c@')).body.data[0].tags).toEqual(['customer']);
    expect((await owner.api('PATCH', '/api/tags/vip', { body: { name: 'VIP & friends/2026' } })).body).toEqual({ name: 'VIP & friends/2026', contacts: 1 });
    expect((await owner.api('GET', `/api/tags`)).body.data.map((t: { name: string }) => t.name)).toEqual(['VIP & friends/2026', 'customer']);
    expect((await owner.api('DELETE', `/api/tags/${encodeURIComponent('VIP & friends/2026')}`)).status).toBe(204);
    expectProblem(await owner.api('DELETE', '/api/tags/vip'), 404, 'not_found');
    expectProblem(await owner.api('PATCH', '/api/tags/nothing', { body: { name: 'x' } }), 404, 'not_found');

    const byIds = await owner.api('POST', '/api/tags/bulk', { body: { add: ['webinar'], contact_ids: [a.id, b.id, 'ct_unknown'] } });
    expect(byIds.body).toEqual({ matched: 2, changed: 2 });
    const again = await owner.api('POST', '/api/tags/bulk', { body: { add: ['webinar'], contact_ids: [a.id] } });
    expect(again.body).toEqual({ matched: 1, changed: 0 });
    const byEmails = await owner.api('POST', '/api/tags/bulk', { body: { add: ['late'], remove: ['webinar'], emails: ['A@EXAMPLE.COM', 'd@example.com'] } });
    expect(byEmails.body).toEqual({ matched: 2, changed: 2 });
    const segment = await owner.api('POST', '/api/segments', { body: { name: 'Late', rules: where('tags', 'contains', 'late') } });
    const bySegment = await owner.api('POST', '/api/tags/bulk', { body: { remove: ['customer'], segment_id: segment.body.id } });
    expect(bySegment.body).toEqual({ matched: 2, changed: 1 });
    const readers = await owner.api('POST', '/api/lists', { body: { name: 'Readers' } });
    await owner.api('POST', `/api/lists/${readers.body.id}/members`, { body: { emails: ['b@example.com', 'd@example.com'] } });
    await owner.api('POST', `/api/lists/${readers.body.id}/members/remove`, { body: { emails: ['d@example.com'] } });
    await owner.api('POST', `/api/lists/${readers.body.id}/members`, { body: { emails: ['c@example.com'], status: 'unsubscribed' } });
    // Members in any status: b subscribed, c unsubscribed; d was removed.
    const byList = await owner.api('POST', '/api/tags/bulk', { body: { add: ['reader'], list_id: readers.body.id } });
    expect(byList.body).toEqual({ matched: 2, changed: 2 });
    const tags = Object.fromEntries((await owner.api('GET', '/api/contacts')).body.data.map((c: { email: string; tags: string[] }) => [c.email, c.tags]));
    expect(tags).toEqual({
      'a@example.com': ['late'],
      'b@example.com': ['customer', 'webinar', 'reader'],
      'c@example.com': ['customer', 'reader'],
      'd@example.com': ['late'],
    });
    for (const body of [
      { add: ['x'] },
      { add: ['x'], contact_ids: [a.id], emails: ['a@example.com'] },
      { contact_ids: [a.id] },
      { add: ['x'], segment_id: 'seg_unknown' },
      { add: ['x'], list_id: 'lst_unknown' },
      { add: ['x'], list_id: readers.body.id, segment_id: segment.body.id },
      { add: ['x'], contact_ids: Array.from({ length: 10_001 }, (_, i) => `ct_${i}`) },
    ]) {
      expectProblem(await owner.api('POST', '/api/tags/bulk', { body }), 400, 'validation_failed');
    }
  });
});

describe('tag operations', () => {
  it('write a contact.updated for each contact they change, which GET /events and webhooks see', async () => {
    const owner = await newAccount(sendline.url, 'tag-events');
    const receiver = await new WebhookReceiver().start();
    try {
      expect((await owner.api('POST', '/api/webhooks', { body: { url: receiver.url, events: ['contact.updated'] } })).status).toBe(201);
      const a = await contact(owner, { email: 'a@tagged.example', tags: ['old', 'keep'] });
      const b = await contact(owner, { email: 'b@tagged.example', tags: ['old'] });
      const c = await contact(owner, { email: 'c@tagged.example', tags: [] });
      expect((await owner.api('PATCH', '/api/tags/old', { body: { name: 'new' } })).status).toBe(200);
      expect((await owner.api('POST', '/api/tags/bulk', { body: { add: ['bulk'], contact_ids: [a.id, c.id] } })).body).toEqual({ matched: 2, changed: 2 });
      expect((await owner.api('POST', '/api/tags/bulk', { body: { add: ['bulk'], contact_ids: [a.id] } })).body).toEqual({ matched: 1, changed: 0 });
      expect((await owner.api('DELETE', '/api/tags/new')).status).toBe(204);

      type Updated = { data: { contact: { id: string; email: string; tags: string[] }; changed: string[] } };
      const events: Updated[] = (await owner.api('GET', '/api/events?type=contact.updated&limit=100')).body.data;
      const seen = events.map((e) => `${e.data.contact.email.split('@')[0]} ${e.data.contact.tags.join(',')} ${e.data.changed.join(',')}`);
      expect(seen.sort()).toEqual(['a keep,bulk tags', 'a new,keep tags', 'a new,keep,bulk tags', 'b  tags', 'b new tags', 'c bulk tags'].sort());
      // Each contact's latest event (events come newest first) shows it exactly as the API does.
      for (const { id } of [a, b, c]) {
        const last = events.find((e) => e.data.contact.id === id)!;
        expect(last.data.contact).toEqual((await owner.api('GET', `/api/contacts/${id}`)).body);
      }
      await waitFor(() => receiver.events('contact.updated').length === 6);
      expect(
        receiver
          .events('contact.updated')
          .map((e) => e.data.contact.id)
          .sort(),
      ).toEqual([a.id, a.id, a.id, b.id, b.id, c.id].sort());
    } finally {
      await receiver.stop();
    }
  });
});

interface Sent {
  contactId: string;
  email: string;
  pixel: string;
  click: string;
}

/** Sends a campaign to `emails` (new contacts) and answers each one's open pixel and first link. */
async function sendTo(account: TestAccount, audience: Record<string, unknown>) {
  const { body: campaign } = await account.api('POST', '/api/campaigns', {
    body: { name: 'Engage', subject: 'News', from_email: 'news@shop.example', content: '<p>Hi</p><a href="https://shop.example/a">A</a>', audience },
  });
  if (!campaign.id) throw new Error(JSON.stringify(campaign));
  const started = await account.api('POST', `/api/campaigns/${campaign.id}/send`);
  if (started.status !== 200) throw new Error(JSON.stringify(started.body));
  await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
  const messages = await sql('select id, contact_id, email from messages where campaign_id = $1 order by email', [campaign.id]);
  const local = (url: string) => url.replace(PUBLIC_URL, '');
  const sent: Sent[] = messages.map((m) => {
    const mail = sink.received.find((r) => r.mail.headers.get('x-sendline-message') === m.id)!;
    const html = String(mail.mail.html);
    return {
      contactId: m.contact_id,
      email: m.email,
      pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
      click: local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&')),
    };
  });
  return { campaign: campaign as { id: string }, sent };
}

const hit = (path: string) => fetch(sendline.url + path, { redirect: 'manual', headers: { 'user-agent': HUMAN_AGENT } });

describe('engagement rules and campaigns to segments', () => {
  it('read real opens, clicks and sent messages', async () => {
    const owner = await newAccount(sendline.url, 'engage');
    for (const name of ['opener', 'clicker', 'idle', 'never']) await contact(owner, { email: `${name}@example.com`, tags: name === 'never' ? [] : ['news'] });
    const first = await sendTo(owner, { tags_any: ['news'] });
    const by = (email: string) => first.sent.find((s) => s.email === email)!;
    await hit(by('opener@example.com').pixel);
    await hit(by('clicker@example.com').click);
    await waitFor(async () => (await sql('select count(*)::int as n from clicks where campaign_id = $1', [first.campaign.id]))[0].n === 1);
    await waitFor(async () => (await sql('select count(*)::int as n from opens where campaign_id = $1', [first.campaign.id]))[0].n === 2);
    const second = await sendTo(owner, { tags_any: ['news'] });

    expect(await matching(owner, { engagement: 'opened' })).toEqual(['clicker', 'opener']);
    expect(await matching(owner, { engagement: 'opened', within_days: 1 })).toEqual(['clicker', 'opener']);
    expect(await matching(owner, { engagement: 'opened', campaign_id: second.campaign.id })).toEqual([]);
    expect(await matching(owner, { engagement: 'clicked', campaign_id: first.campaign.id })).toEqual(['clicker']);
    expect(await matching(owner, { engagement: 'not_clicked' })).toEqual(['idle', 'never', 'opener']);
    expect(await matching(owner, { engagement: 'not_opened' })).toEqual(['idle', 'never']);
    expect(await matching(owner, { engagement: 'received', at_least: 2 })).toEqual(['clicker', 'idle', 'opener']);
    expect(await matching(owner, { engagement: 'received', at_least: 3 })).toEqual([]);
    expect(await matching(owner, { engagement: 'received', campaign_id: second.campaign.id })).toEqual(['clicker', 'idle', 'opener']);
    // Opens made a day ago and more fall out of a one-day window.
    await sql("update opens set occurred_at = now() - interval '3 days' where campaign_id = $1", [first.campaign.id]);
    expect(await matching(owner, { engagement: 'opened', within_days: 1 })).toEqual([]);
    expect(await matching(owner, { engagement: 'opened', within_days: 7 })).toEqual(['clicker', 'opener']);
    expect(await matching(owner, { all: [{ engagement: 'received' }, { engagement: 'not_opened' }] })).toEqual(['idle']);

    // A campaign to a segment reaches its members only, with the audience's tag rules on top.
    const engaged = await owner.api('POST', '/api/segments', { body: { name: 'Engaged', rules: { engagement: 'opened' } } });
    const idle = await owner.api('POST', '/api/segments', { body: { name: 'Idle', rules: where('email', 'starts_with', 'idle') } });
    const before = sink.received.length;
    const third = await sendTo(owner, { segment_ids: [engaged.body.id, idle.body.id], exclude_tags: ['skip'] });
    expect(third.sent.map((s) => s.email)).toEqual(['clicker@example.com', 'idle@example.com', 'opener@example.com']);
    const recipients = sink.received.slice(before).map((r) => r.to);
    expect(recipients.sort()).toEqual(['clicker@example.com', 'idle@example.com', 'opener@example.com']);
    await owner.api('POST', '/api/tags/bulk', { body: { add: ['skip'], emails: ['opener@example.com'] } });
    const fourth = await sendTo(owner, { segment_ids: [engaged.body.id], exclude_tags: ['skip'] });
    expect(fourth.sent.map((s) => s.email)).toEqual(['clicker@example.com']);
    const bad = await owner.api('POST', '/api/campaigns', {
      body: { name: 'x', subject: 'x', from_email: 'news@shop.example', content: 'x', audience: { segment_ids: ['seg_unknown'] } },
    });
    expectProblem(bad, 400, 'validation_failed');
    expect(bad.body.errors[0].pointer).toBe('/audience/segment_ids/0');
  }, 60_000);
});

describe('tenant isolation', () => {
  it('keeps every route to the account', async () => {
    const alice = await newAccount(sendline.url, 'alice');
    const mallory = await newAccount(sendline.url, 'mallory');
    const malloryKey = (await newApiKey(mallory, sendline.url, { scopes: ['read', 'write'] })).api;
    const ada = await contact(alice, { email: 'ada@alice.example', tags: ['secret'], attributes: { plan: 'x' } });
    await contact(mallory, { email: 'm@mallory.example' });
    const field = await alice.api('POST', '/api/fields', { body: { key: 'plan', label: 'Plan', type: 'text' } });
    const segment = await alice.api('POST', '/api/segments', { body: { name: 'All', rules: where('email', 'is_set') } });
    for (const api of [mallory.api, malloryKey]) {
      expectProblem(await api('GET', `/api/fields/${field.body.id}`), 404, 'not_found');
      expectProblem(await api('PATCH', `/api/fields/${field.body.id}`, { body: { label: 'x' } }), 404, 'not_found');
      expectProblem(await api('DELETE', `/api/fields/${field.body.id}`), 404, 'not_found');
      expect((await api('GET', '/api/fields')).body.data).toEqual([]);
      expectProblem(await api('GET', `/api/segments/${segment.body.id}`), 404, 'not_found');
      expectProblem(await api('PATCH', `/api/segments/${segment.body.id}`, { body: { name: 'x' } }), 404, 'not_found');
      expectProblem(await api('GET', `/api/segments/${segment.body.id}/contacts`), 404, 'not_found');
      expectProblem(await api('DELETE', `/api/segments/${segment.body.id}`), 404, 'not_found');
      expect((await api('GET', '/api/segments')).body.data).toEqual([]);
      const preview = await api('POST', '/api/segments/preview', { body: { rules: where('email', 'is_set') } });
      expect(preview.body.sample.map((c: { email: string }) => c.email)).toEqual(['m@mallory.example']);
      expect((await api('GET', '/api/tags')).body.data).toEqual([]);
      expectProblem(await api('PATCH', '/api/tags/secret', { body: { name: 'mine' } }), 404, 'not_found');
      expectProblem(await api('DELETE', '/api/tags/secret'), 404, 'not_found');
      expect((await api('POST', '/api/tags/bulk', { body: { add: ['pwned'], contact_ids: [ada.id] } })).body).toEqual({ matched: 0, changed: 0 });
      expect((await api('POST', '/api/tags/bulk', { body: { add: ['pwned'], emails: ['ada@alice.example'] } })).body).toEqual({ matched: 0, changed: 0 });
      expectProblem(await api('POST', '/api/tags/bulk', { body: { add: ['pwned'], segment_id: segment.body.id } }), 400, 'validation_failed');
      const campaign = await api('POST', '/api/campaigns', {
        body: { name: 'x', subject: 'x', from_email: 'news@shop.example', content: 'x', audience: { segment_ids: [segment.body.id] } },
      });
      expectProblem(campaign, 400, 'validation_failed');
    }
    // Alice's field does not type Mallory's attributes.
    expect((await contact(mallory, { email: 'n@mallory.example', attributes: { plan: 5 } })).email).toBe('n@mallory.example');
    expect((await alice.api('GET', `/api/contacts/${ada.id}`)).body.tags).toEqual(['secret']);
    expect((await alice.api('GET', `/api/segments/${segment.body.id}/contacts`)).body.data.map((c: { id: string }) => c.id)).toEqual([ada.id]);
  });
});

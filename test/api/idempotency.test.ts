import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { implementedHandlers } from '../../server/app.ts';
import { sqlOf } from '../../server/db/kysely.ts';
import { idempotencyStore } from '../../server/idempotency/store.ts';
import type { Sendline } from '../../server/start.ts';
import type { ServerProcess } from '../process.ts';
import {
  client,
  expectProblem,
  newAccount,
  newApiKey,
  spawnTestServer,
  startTestServer,
  uniqueEmail,
  waitFor,
  type Client,
  type TestAccount,
} from '../helpers.ts';

// A contact created with this first name fails once with a server error (a handler that throws),
// as a database outage would, and succeeds when tried again.
const FAIL_ONCE = 'fail-once';
const failed = new Set<string>();
const createContact = implementedHandlers.Contacts_create;
(implementedHandlers as Record<string, unknown>).Contacts_create = async (call: any) => {
  if (call.body.first_name === FAIL_ONCE && !failed.has(call.body.email)) {
    failed.add(call.body.email);
    throw new Error('the database went away');
  }
  return createContact(call);
};

let a: Sendline;
let b: ServerProcess;

beforeAll(async () => {
  // Two processes on one database, as behind a load balancer: this one, and one started as `npm start` does.
  [a, b] = await Promise.all([startTestServer(), spawnTestServer({}, { keepOutput: false })]);
});
afterAll(async () => {
  b?.proc.kill('SIGTERM');
  await Promise.all([a?.stop(), b?.exited]);
});

const key = () => `k-${randomUUID()}`;
const withKey = (k: string, headers: Record<string, string> = {}) => ({ headers: { 'idempotency-key': k, ...headers } });

async function rows(accountId: string) {
  return a.orm.em.getConnection().execute<any[]>('select * from idempotency_keys where account_id = ?', [accountId]);
}

async function contactCount(account: TestAccount, email: string): Promise<number> {
  const res = await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`);
  return res.body.data.length;
}

describe('Idempotency-Key', () => {
  let owner: TestAccount;
  let api: Client;
  let secret: string;
  beforeAll(async () => {
    owner = await newAccount(a.url);
    const made = await newApiKey(owner, a.url);
    api = made.api;
    secret = made.key.key;
  });

  it('replays the stored answer of a repeated request, which does not run again', async () => {
    const k = key();
    const email = uniqueEmail('replay');
    const first = await api('POST', '/api/contacts', { body: { email, first_name: 'Ada' }, ...withKey(k) });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // Through the other server and another alias of the API: one API, one database.
    const again = await client(b.url, { 'x-api-key': secret })('POST', '/v1/contacts', { body: { email, first_name: 'Ada' }, ...withKey(k) });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.body).toEqual(first.body);
    expect(await contactCount(owner, email)).toBe(1);
  });

  it('replays refusals of the handler too (a 409), but not a different request', async () => {
    const email = uniqueEmail('dup');
    expect((await api('POST', '/api/contacts', { body: { email } })).status).toBe(201);
    const k = key();
    const conflict = await api('POST', '/api/contacts', { body: { email }, ...withKey(k) });
    expectProblem(conflict, 409, 'contact_exists');
    const replayed = await api('POST', '/api/contacts', { body: { email }, ...withKey(k) });
    expectProblem(replayed, 409, 'contact_exists');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 idempotency_key_reused for another body, path or query with the same key', async () => {
    const k = key();
    const email = uniqueEmail('reuse');
    expect((await api('POST', '/api/contacts', { body: { email }, ...withKey(k) })).status).toBe(201);
    const otherBody = await api('POST', '/api/contacts', { body: { email, first_name: 'Other' }, ...withKey(k) });
    expectProblem(otherBody, 422, 'idempotency_key_reused');
    // The same JSON value written differently is another body: the bytes are what is compared.
    expectProblem(
      await api('POST', '/api/contacts', { raw: JSON.stringify({ email }, null, 2), ...withKey(k, { 'content-type': 'application/json' }) }),
      422,
      'idempotency_key_reused',
    );
    expectProblem(
      await api('POST', '/api/campaigns', { body: { name: 'x', subject: 'x', from_email: 'a@example.com', content: 'x' }, ...withKey(k) }),
      422,
      'idempotency_key_reused',
    );
    expect(await contactCount(owner, email)).toBe(1);
    const campaigns = await api('GET', '/api/campaigns');
    expect(campaigns.body.data).toHaveLength(0);
  });

  it('refuses a malformed key with 400 invalid_idempotency_key, the header at fault', async () => {
    for (const bad of ['', 'x'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await api('POST', '/api/contacts', { body: { email: uniqueEmail('bad') }, ...withKey(bad) });
      expectProblem(res, 400, 'invalid_idempotency_key');
      expect(res.body.errors).toEqual([{ pointer: 'headers.idempotency-key', detail: expect.any(String) }]);
    }
    expect((await api('POST', '/api/contacts', { body: { email: uniqueEmail('long') }, ...withKey('x'.repeat(255)) })).status).toBe(201);
  });

  it('does nothing without the header', async () => {
    const before = (await rows(owner.accountId)).length;
    const email = uniqueEmail('plain');
    expect((await api('POST', '/api/contacts', { body: { email } })).status).toBe(201);
    expect((await api('POST', '/api/contacts', { body: { email } })).status).toBe(409);
    expect((await rows(owner.accountId)).length).toBe(before);
  });

  it('does not store a server error: the retry runs', async () => {
    const k = key();
    const email = uniqueEmail('flaky');
    const body = { email, first_name: FAIL_ONCE };
    expectProblem(await api('POST', '/api/contacts', { body, ...withKey(k) }), 500, 'internal_error');
    expect((await rows(owner.accountId)).filter((r) => r.key === k)).toEqual([]);
    const retried = await api('POST', '/api/contacts', { body, ...withKey(k) });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await contactCount(owner, email)).toBe(1);
  });

  it('does not store refusals from before the handler (401, 403)', async () => {
    const k = key();
    const { api: readOnly } = await newApiKey(owner, a.url, { scopes: ['read'] });
    expectProblem(await readOnly('POST', '/api/contacts', { body: { email: uniqueEmail('ro') }, ...withKey(k) }), 403, 'insufficient_scope');
    expect((await rows(owner.accountId)).filter((r) => r.key === k)).toEqual([]);
  });

  it('scopes keys to the account and the credential', async () => {
    const k = key();
    const email = uniqueEmail('scoped');
    const mine = await api('POST', '/api/contacts', { body: { email }, ...withKey(k) });
    expect(mine.status).toBe(201);

    const other = await newAccount(a.url, 'other');
    const { api: theirs } = await newApiKey(other, a.url);
    const fresh = await theirs('POST', '/api/contacts', { body: { email }, ...withKey(k) });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();
    expect(fresh.body.id).not.toBe(mine.body.id);
    expect(await contactCount(other, email)).toBe(1);

    // Another credential of the same account runs its own request (here: the email is taken).
    expectProblem(await owner.api('POST', '/api/contacts', { body: { email }, ...withKey(k) }), 409, 'contact_exists');
  });

  it('seals stored answers: a new API key secret is not in the table', async () => {
    const k = key();
    const created = await owner.api('POST', '/api/api-keys', { body: { name: 'sealed' }, ...withKey(k) });
    expect(created.status).toBe(201);
    const secret: string = created.body.key;
    const [row] = (await rows(owner.accountId)).filter((r) => r.key === k);
    expect(row.status).toBe(201);
    const raw = JSON.stringify(row) + Buffer.from(row.sealed_answer).toString('latin1');
    for (const form of [secret, secret.slice(8, 40), Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex')])
      expect(raw).not.toContain(form);

    const replayed = await owner.api('POST', '/api/api-keys', { body: { name: 'sealed' }, ...withKey(k) });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.key).toBe(secret);
    const keys = await owner.api('GET', '/api/api-keys');
    expect(keys.body.data.filter((x: any) => x.name === 'sealed')).toHaveLength(1);
  });

  it('expires keys after 24 hours, and the prune job drops them', async () => {
    const k = key();
    const email = uniqueEmail('old');
    expect((await api('POST', '/api/contacts', { body: { email }, ...withKey(k) })).status).toBe(201);
    const age = (hours: number) =>
      a.orm.em
        .getConnection()
        .execute(`update idempotency_keys set created_at = now() - make_interval(hours => ?) where account_id = ? and key = ?`, [hours, owner.accountId, k]);
    await age(23);
    expectProblem(await api('POST', '/api/contacts', { body: { email: uniqueEmail('new') }, ...withKey(k) }), 422, 'idempotency_key_reused');
    await age(25);
    // An expired key is a new key: another request with it runs.
    const email2 = uniqueEmail('new');
    const fresh = await api('POST', '/api/contacts', { body: { email: email2 }, ...withKey(k) });
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get('idempotent-replayed')).toBeNull();

    await age(25);
    const pruned = await idempotencyStore.prune(sqlOf(a.orm.em.fork()));
    expect(pruned).toBeGreaterThanOrEqual(1);
    expect((await rows(owner.accountId)).filter((r) => r.key === k)).toEqual([]);
    const jobs = await a.orm.em.getConnection().execute("select name from agenda_jobs where name = 'idempotency-keys.prune'");
    expect(jobs).toHaveLength(1);
  });

  it('frees the key of a request that never answered (its process died) after 10 minutes', async () => {
    const k = key();
    const credential = `user:${owner.userId}`;
    const reserve = (minutesAgo: number) =>
      a.orm.em.getConnection().execute(
        `insert into idempotency_keys (account_id, credential, key, holder, method, path, created_at)
           values (?, ?, ?, 'a dead process', 'POST', '/api/v1/contacts', now() - make_interval(mins => ?))
           on conflict (account_id, credential, key) do update set created_at = excluded.created_at`,
        [owner.accountId, credential, k, minutesAgo],
      );
    const body = { email: uniqueEmail('orphan') };
    await reserve(9);
    expectProblem(await owner.api('POST', '/api/contacts', { body, ...withKey(k) }), 409, 'idempotency_key_in_use');
    await reserve(11);
    expect((await owner.api('POST', '/api/contacts', { body, ...withKey(k) })).status).toBe(201);
    const [row] = (await rows(owner.accountId)).filter((r) => r.key === k);
    expect([row.status, row.holder]).toEqual([201, expect.not.stringMatching('a dead process')]);
  });

  it('is accepted and ignored where no one is authenticated (login)', async () => {
    const k = key();
    const login = () => client(a.url)('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password }, ...withKey(k) });
    const [first, second] = [await login(), await login()];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    expectProblem(
      await client(a.url)('POST', '/api/auth/login', { body: { email: owner.email, password: owner.password }, ...withKey('') }),
      400,
      'invalid_idempotency_key',
    );
  });
});

describe('Idempotency-Key on uploads', () => {
  let owner: TestAccount;
  beforeAll(async () => {
    owner = await newAccount(a.url, 'uploads');
  });

  const csvImport = (csv: string, k: string, query = '') =>
    owner.api('POST', `/api/contacts/import${query}`, { raw: csv, ...withKey(k, { 'content-type': 'text/csv' }) });

  it('compares CSV bodies and their options', async () => {
    const k = key();
    const csv = `email\n${uniqueEmail('csv')}\n`;
    const first = await csvImport(csv, k);
    expect(first.status).toBe(202);
    const again = await csvImport(csv, k);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expectProblem(await csvImport(`email\n${uniqueEmail('csv')}\n`, k), 422, 'idempotency_key_reused');
    expectProblem(await csvImport(csv, k, '?mode=create_only'), 422, 'idempotency_key_reused');
  });

  it('compares multipart bodies by their parts, whatever their boundary', async () => {
    const k = key();
    const upload = (csv: string, tags: string) => {
      const form = new FormData();
      form.append('tags', tags);
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
      return fetch(`${a.url}/api/contacts/import`, { method: 'POST', body: form, headers: { authorization: `Bearer ${owner.token}`, 'idempotency-key': k } });
    };
    const csv = `email\n${uniqueEmail('multi')}\n`;
    const first = await upload(csv, 'vip');
    expect(first.status).toBe(202);
    const firstBody: any = await first.json();
    // FormData picks a new boundary for each request.
    const again = await upload(csv, 'vip');
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(((await again.json()) as any).id).toBe(firstBody.id);
    expect((await upload(csv, 'other')).status).toBe(422);
    expect((await upload(`email\n${uniqueEmail('multi')}\n`, 'vip')).status).toBe(422);
  });

  it('refuses a multipart body whose parts have no name, and keeps serving', async () => {
    const boundary = 'xyz';
    const raw = [
      `--${boundary}`,
      'Content-Disposition: form-data',
      '',
      'value',
      `--${boundary}`,
      'Content-Disposition: form-data; filename="a.csv"',
      '',
      'email',
      `--${boundary}--`,
      '',
    ].join('\r\n');
    const res = await owner.api('POST', '/api/contacts/import', { raw, ...withKey(key(), { 'content-type': `multipart/form-data; boundary=${boundary}` }) });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect((await owner.api('GET', '/api/contacts?limit=1')).status).toBe(200);
  });

  it('answers 409 to a duplicate arriving while the first is still running, on another server', async () => {
    // An account of its own: the imports of the tests above may still count against its limit.
    const owner = await newAccount(a.url, 'slow');
    const k = key();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const rowsCsv = Array.from({ length: 2000 }, (_, i) => `slow-${i}-${randomUUID().slice(0, 6)}@example.com`).join('\n');
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode(`email\n${rowsCsv.slice(0, 1000)}`));
        await held;
        controller.enqueue(new TextEncoder().encode(rowsCsv.slice(1000) + '\n'));
        controller.close();
      },
    });
    const slow = fetch(`${a.url}/api/contacts/import`, {
      method: 'POST',
      body,
      duplex: 'half',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv', 'idempotency-key': k },
    });
    await waitFor(async () => (await rows(owner.accountId)).some((r) => r.key === k));

    const duplicate = await client(b.url, { authorization: `Bearer ${owner.token}` })('POST', '/api/contacts/import', {
      raw: `email\n${rowsCsv}\n`,
      ...withKey(k, { 'content-type': 'text/csv' }),
    });
    expectProblem(duplicate, 409, 'idempotency_key_in_use');

    release();
    const first = await slow;
    expect(first.status).toBe(202);
    const firstBody: any = await first.json();
    const replayed = await client(b.url, { authorization: `Bearer ${owner.token}` })('POST', '/api/contacts/import', {
      raw: `email\n${rowsCsv}\n`,
      ...withKey(k, { 'content-type': 'text/csv' }),
    });
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body.id).toBe(firstBody.id);
    const imports = await owner.api('GET', '/api/contacts/import');
    expect(imports.body.data.filter((i: any) => i.id === firstBody.id)).toHaveLength(1);
  });

  it('does not store an upload refused before its body was read, and drops the unread body', async () => {
    const busy = await newAccount(a.url, 'busy');
    for (let i = 0; i < 2; i++) {
      await a.orm.em
        .getConnection()
        .execute("insert into contact_imports (id, account_id, status, mode) values (?, ?, 'running', 'upsert')", [
          `imp_busy${i}${randomUUID().slice(0, 8)}`,
          busy.accountId,
        ]);
    }
    const k = key();
    const csv = 'email\n' + Array.from({ length: 40_000 }, (_, i) => `busy-${i}@example.com`).join('\n');
    const refused = await busy.api('POST', '/api/contacts/import', { raw: csv, ...withKey(k, { 'content-type': 'text/csv' }) });
    expectProblem(refused, 429, 'too_many_imports');
    expect((await rows(busy.accountId)).filter((r) => r.key === k)).toEqual([]);
    // The connection is free again: the next request on it is answered.
    expect((await busy.api('GET', '/api/auth/me')).status).toBe(200);
  });

  it('runs one of two slow duplicates sent at once to two servers (a 5,000-row JSON import)', async () => {
    const racer = await newAccount(a.url, 'racer');
    const contacts = Array.from({ length: 5000 }, (_, i) => ({ email: `race-${i}@example.com`, first_name: `N${i}` }));
    const k = key();
    const send = (server: { url: string }) =>
      client(server.url, { authorization: `Bearer ${racer.token}` })('POST', '/api/contacts/import', { body: { contacts }, ...withKey(k) });
    const answers = await Promise.all([send(a), send(b)]);
    const ran = answers.filter((r) => r.status === 202 && r.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    const other = answers.find((r) => r !== ran[0])!;
    if (other.status === 409) expectProblem(other, 409, 'idempotency_key_in_use');
    else expect([other.status, other.headers.get('idempotent-replayed'), other.body.id]).toEqual([202, 'true', ran[0].body.id]);
    const imports = await racer.api('GET', '/api/contacts/import');
    expect(imports.body.data).toHaveLength(1);
    const [{ count }] = await a.orm.em.getConnection().execute('select count(*)::int as count from contacts where account_id = ?', [racer.accountId]);
    expect(count).toBe(5000);
  });

  it('runs exactly one of two duplicates sent at once to two servers', async () => {
    const secret: string = (await newApiKey(owner, a.url)).key.key;
    for (let i = 0; i < 10; i++) {
      const k = key();
      const email = uniqueEmail('race');
      const send = (server: { url: string }) => client(server.url, { 'x-api-key': secret })('POST', '/api/contacts', { body: { email }, ...withKey(k) });
      const answers = await Promise.all([send(a), send(b)]);
      const ran = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
      expect(ran).toHaveLength(1);
      for (const other of answers.filter((r) => r !== ran[0])) {
        if (other.status === 409) expectProblem(other, 409, 'idempotency_key_in_use');
        else expect([other.status, other.headers.get('idempotent-replayed'), other.body.id]).toEqual([201, 'true', ran[0].body.id]);
      }
      expect(await contactCount(owner, email)).toBe(1);
    }
  });
});

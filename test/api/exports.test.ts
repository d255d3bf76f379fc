import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { csvLine } from '../../server/formats/csv.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';

let sendline: Sendline;
beforeAll(async () => {
  sendline = await startTestServer({ LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
});
afterAll(async () => {
  await sendline?.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

async function createContact(account: TestAccount, body: Record<string, unknown>): Promise<void> {
  const res = await account.api('POST', '/api/contacts', { body });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
}

/** Runs an export to completion and answers its CSV and what its status said. */
async function exportOf(account: TestAccount, filters: Record<string, unknown>): Promise<{ csv: string; rows: number; bytes: number; id: string }> {
  const started = await account.api('POST', '/api/contacts/exports', { body: filters });
  expect(started.status).toBe(202);
  const done = await waitFor(async () => {
    const res = await account.api('GET', `/api/contacts/exports/${started.body.id}`);
    if (res.body.status === 'failed') throw new Error('the export failed');
    return res.body.status === 'completed' && res.body;
  }, 30_000);
  const csv = await account.api('GET', `/api/contacts/exports/${started.body.id}/download`);
  expect(csv.status).toBe(200);
  return { csv: csv.body, rows: done.rows, bytes: done.bytes, id: started.body.id };
}

/**
 * The CSV as Sendline writes contacts with `csvLine` (server/formats/csv.ts): the columns, then a
 * line per contact in `(created_at, id)` order, an attribute that is not text as the API's JSON.
 * `where` narrows the contacts as the export's filters do.
 */
async function expectedCsv(accountId: string, where = 'true', params: unknown[] = []): Promise<string> {
  const keys: string[] = (
    await sql(`select distinct jsonb_object_keys(attributes) as key from contacts where account_id = $1 and ${where} order by key`, [accountId, ...params])
  ).map((r) => r.key);
  let csv = csvLine(['email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'timezone', 'created_at', 'updated_at', ...keys]);
  const contacts = await sql(
    `select email, first_name, last_name, status, status_reason, tags, timezone, attributes, created_at, updated_at
     from contacts where account_id = $1 and ${where} order by created_at, id`,
    [accountId, ...params],
  );
  for (const c of contacts) {
    const attributes = keys.map((key) => {
      const value: unknown = c.attributes[key];
      return value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);
    });
    csv += csvLine([
      c.email,
      c.first_name,
      c.last_name,
      c.status,
      c.status_reason,
      c.tags.join(';'),
      c.timezone,
      c.created_at.toISOString(),
      c.updated_at.toISOString(),
      ...attributes,
    ]);
  }
  return csv;
}

/** Contacts written straight into the table: values the API would write otherwise, and many of them. */
async function insertContacts(accountId: string, rows: { email: string; attributes: string; tags?: string[]; status?: string; at?: string }[]) {
  const prefix = `ct_x${randomUUID().slice(0, 8)}`;
  await sql(
    `insert into contacts (id, account_id, email, attributes, tags, status, created_at, updated_at)
     select $2 || lpad(r.n::text, 6, '0'), $1, r.email, r.attributes::jsonb, r.tags, r.status, coalesce(r.at::timestamptz, now()), now()
     from jsonb_to_recordset($3::jsonb) as r(email text, attributes text, tags text[], status text, at text, n bigint)`,
    [accountId, prefix, JSON.stringify(rows.map((r, n) => ({ tags: [], status: 'subscribed', ...r, n })))],
  );
}

describe('contact exports written by PostgreSQL', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'export-bytes');
    await createContact(account, {
      email: 'unicode@example.com',
      first_name: 'Zoë 李 ✉️',
      last_name: 'שלום, "world"',
      tags: ['vip', 'ünï'],
      attributes: { city: 'Saint-Étienne', note: 'line one\nline two', crlf: 'a\r\nb', emoji: '😀' },
    });
    await createContact(account, {
      email: 'formulas@example.com',
      first_name: '-2+3',
      last_name: '@me',
      tags: ['vip'],
      attributes: { city: '=1+1', note: '\tindented', crlf: '\rreturn', emoji: '+33 1 23', plain: 'a "quoted" word' },
    });
    await createContact(account, {
      email: 'json@example.com',
      tags: ['other'],
      attributes: {
        seats: 3,
        ratio: 0.1,
        big: 1e21,
        small: -2.5e-7,
        vip: true,
        none: null,
        nested: { b: 1, 10: [1, 'x,y'], 9: { c: null } },
        list: ['=a', 2, false],
        empty: '',
        looks_like_json: '{"a": 1}',
      },
    });
    // Stored otherwise than the API would write them: numbers as written in SQL, odd keys, a line over a chunk.
    await insertContacts(account.accountId, [
      { email: 'sql@example.com', attributes: '{"ratio": 1.50, "big": 123456789012345678901234567890, "huge": 1e400, "tiny": 1e-400, "e15": 1e16}' },
      { email: 'keys@example.com', attributes: '{"=key": "v", "a,b": "w", "nested": {"4294967295": 1, "4294967294": 2, "01": 3, "b": [{}, []]}}' },
      { email: 'long@example.com', attributes: JSON.stringify({ note: `${'x'.repeat(70_000)},"end"` }) },
    ]);
  });

  it('writes the same bytes as the CSV rules of csvLine, for every kind of value', async () => {
    const { csv, rows, bytes } = await exportOf(account, {});
    expect(csv).toBe(await expectedCsv(account.accountId));
    expect(rows).toBe(6);
    expect(bytes).toBe(Buffer.byteLength(csv));
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(
      'email,first_name,last_name,status,status_reason,tags,timezone,created_at,updated_at,"\'=key","a,b",big,city,crlf,e15,emoji,empty,huge,list,looks_like_json,nested,none,note,plain,ratio,seats,small,tiny,vip',
    );
    expect(csv).toContain('unicode@example.com,Zoë 李 ✉️,"שלום, ""world""",subscribed,,vip;ünï,');
    expect(csv).toContain(',Saint-Étienne,"a\r\nb",,😀,,,,,,,"line one\nline two",,,,,,\r\n');
    expect(csv).toContain(`formulas@example.com,"'-2+3","'@me",subscribed,,vip,`);
    expect(csv).toContain(`,"'=1+1","'\rreturn",,"'+33 1 23",,,,,,,"'\tindented","a ""quoted"" word",,,,,\r\n`);
    expect(csv).toContain(`,1e+21,,,,,,,"[""=a"",2,false]","{""a"": 1}","{""9"":{""c"":null},""10"":[1,""x,y""],""b"":1}",,,,0.1,3,"'-2.5e-7",,true\r\n`);
    expect(csv).toContain(',1.2345678901234568e+29,,,10000000000000000,,,null,,,,,,,1.5,,,0,\r\n');
    expect(csv).toContain('"{""4294967294"":2,""b"":[{},[]],""01"":3,""4294967295"":1}"');
    expect(csv).toContain(`,"${'x'.repeat(70_000)},""end""",`);
  });

  it('guards formulas and keeps the cells that look like the guard as they are', async () => {
    const marks = await newAccount(sendline.url, 'export-marks');
    await insertContacts(marks.accountId, [
      {
        email: 'marks@example.com',
        attributes: JSON.stringify({
          m1: '\u0001plain',
          m2: '\u0001=x,"y"',
          m3: "'=x",
          m4: `"'=x`,
          m5: '=a\nb "c"',
          m6: '\r=x',
          m7: '',
          m8: '-',
          m9: '\u0001',
          n1: '@',
          n2: '+1,5',
        }),
      },
    ]);
    const { csv } = await exportOf(marks, {});
    expect(csv).toBe(await expectedCsv(marks.accountId));
    const line = csv.split('\r\n')[1];
    expect(line.slice(line.indexOf(',\u0001plain'))).toBe(`,\u0001plain,"\u0001=x,""y""",'=x,"""'=x","'=a\nb ""c""","'\r=x",,"'-",\u0001,"'@","'+1,5"`);
  });

  it('writes pages of many contacts in order, in chunks of whole lines', async () => {
    const many = await newAccount(sendline.url, 'export-many');
    const rows = Array.from({ length: 12_345 }, (_, i) => ({
      email: `many${i}@example.com`,
      attributes: JSON.stringify({ n: i, half: i / 2, odd: i % 2 ? `=odd ${i}` : null, text: i % 7 ? 'plain' : 'with, comma' }),
      tags: [`t${i % 3}`],
      // Ties on created_at, ordered by id, across the job's pages.
      at: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 1000).toISOString(),
    }));
    await insertContacts(many.accountId, rows);
    const { csv, rows: written, id } = await exportOf(many, {});
    expect(written).toBe(rows.length);
    expect(csv).toBe(await expectedCsv(many.accountId));
    const chunks = await sql('select seq, octet_length(data) as bytes from contact_export_chunks where export_id = $1 order by seq', [id]);
    expect(chunks.map((c) => c.seq)).toEqual(chunks.map((_, i) => i));
    for (const c of chunks.slice(1, -1)) expect(c.bytes).toBeLessThan(49_152 + 200);
  });

  it('writes only the contacts the filters match, with their attributes as the columns', async () => {
    const tagged = await exportOf(account, { tag: 'vip' });
    expect(tagged.csv).toBe(await expectedCsv(account.accountId, 'tags @> array[$2]::text[]', ['vip']));
    expect(tagged.rows).toBe(2);
    expect(tagged.csv.split('\r\n')[0]).toBe('email,first_name,last_name,status,status_reason,tags,timezone,created_at,updated_at,city,crlf,emoji,note,plain');
    const searched = await exportOf(account, { q: 'JSON', status: 'subscribed' });
    expect(searched.csv).toBe(await expectedCsv(account.accountId, "lower(email) like 'json%'"));
    expect(searched.rows).toBe(1);
    const none = await exportOf(account, { tag: 'nobody' });
    expect(none.csv).toBe('email,first_name,last_name,status,status_reason,tags,timezone,created_at,updated_at\r\n');
    expect(none.rows).toBe(0);
  });
});

describe('contact exports of a selection', () => {
  let account: TestAccount;
  let other: TestAccount;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'export-selection');
    other = await newAccount(sendline.url, 'export-selection-other');
    for (const [name, status] of [
      ['ann', 'subscribed'],
      ['bob', 'unsubscribed'],
      ['cat', 'subscribed'],
      ['dan', 'subscribed'],
    ]) {
      const res = await account.api('POST', '/api/contacts', { body: { email: `${name}@example.com`, status, attributes: { name } } });
      expect(res.status).toBe(201);
      ids[name] = res.body.id;
    }
    const foreign = await other.api('POST', '/api/contacts', { body: { email: 'eve@example.com' } });
    expect(foreign.status).toBe(201);
    ids.eve = foreign.body.id;
  });

  it('holds exactly the contacts named, of the account only, and shows the ids as stored', async () => {
    const picked = await exportOf(account, { contact_ids: [ids.dan, ids.ann, ids.bob, ids.eve] });
    expect(picked.csv).toBe(await expectedCsv(account.accountId, 'id = any($2::text[])', [[ids.ann, ids.bob, ids.dan]]));
    expect(picked.rows).toBe(3);
    const shown = await account.api('GET', `/api/contacts/exports/${picked.id}`);
    expect(shown.body.filters).toEqual({ contact_ids: [ids.dan, ids.ann, ids.bob, ids.eve] });
    // Another account's export of the same ids holds its own contact only.
    const theirs = await exportOf(other, { contact_ids: [ids.ann, ids.eve] });
    expect(theirs.rows).toBe(1);
    expect(theirs.csv).toContain('eve@example.com');
  });

  it('applies the other filters on top of the ids', async () => {
    const subscribed = await exportOf(account, { contact_ids: [ids.ann, ids.bob, ids.cat], status: 'subscribed' });
    expect(subscribed.csv).toBe(await expectedCsv(account.accountId, "id = any($2::text[]) and status = 'subscribed'", [[ids.ann, ids.cat]]));
    expect(subscribed.rows).toBe(2);
    const none = await exportOf(account, { contact_ids: [ids.ann], status: 'unsubscribed' });
    expect(none.rows).toBe(0);
  });

  it('refuses ids that are not a list of 1 to 10,000 distinct contact ids', async () => {
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `ct_${String(i).padStart(22, '0')}`);
    for (const [contactIds, pointer] of [
      [tooMany, '/contact_ids'],
      [[], '/contact_ids'],
      [ids.ann, '/contact_ids'],
      [[ids.ann, ids.ann], '/contact_ids'],
      [[ids.ann, 'lst_0Vbp7Rz2P3qkaVD2lbaV53'], '/contact_ids/1'],
    ] as const) {
      const res = await account.api('POST', '/api/contacts/exports', { body: { contact_ids: contactIds } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toContain(pointer);
    }
  });
});

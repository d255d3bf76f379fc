/**
 * Input no handler can use gets a 4xx problem with a stable code and the field at fault, never a
 * 500: NUL characters, deep JSON, timestamps and cursors PostgreSQL cannot store, malformed
 * multipart bodies, oversized headers, JSON values of the wrong type.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer();
  owner = await newAccount(sendline.url, 'bad-input');
});
afterAll(() => sendline.stop());

const cursorOf = (at: string, id = 'ct_x') => Buffer.from(JSON.stringify([at, id])).toString('base64url');

describe('the NUL character', () => {
  it('is refused in query values, path ids, JSON strings and JSON names, naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/api/contacts?q=%00', undefined, 'query.q'],
      ['GET', '/api/contacts/ct_%00x', undefined, 'path.id'],
      ['DELETE', '/api/campaigns/%00', undefined, 'path.id'],
      ['POST', '/api/contacts', { email: 'nul@example.com', first_name: 'a\u0000b' }, '/first_name'],
      ['POST', '/api/contacts', { email: 'nul@example.com', attributes: { 'pl\u0000an': 'pro' } }, '/attributes/pl\u0000an'],
      ['POST', '/api/contacts', { email: 'nul@example.com', tags: ['ok', 'b\u0000d'] }, '/tags/1'],
    ];
    for (const [method, path, body, pointer] of cases) {
      const res = await owner.api(method, path, { body });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors, `${method} ${path}`).toEqual([{ pointer, detail: expect.stringContaining('NUL') }]);
    }
    // Nothing was half-written.
    expect((await owner.api('GET', '/api/contacts?email=nul%40example.com')).body.data).toEqual([]);
  });
});

describe('unpaired surrogates', () => {
  it('are refused in JSON strings and names, which JSON can write as \\ud800, naming the field', async () => {
    const cases: [string, string, string][] = [
      ['/api/contacts', '{"email":"lone@example.com","attributes":{"note":"x\\ud800y"}}', '/attributes/note'],
      ['/api/contacts', '{"email":"lone@example.com","first_name":"\\udfff"}', '/first_name'],
      ['/api/contacts/import', '{"contacts":[{"email":"lone@example.com","attributes":{"\\ud83d":"a"}}]}', '/contacts/0/attributes/\ud83d'],
    ];
    for (const [path, raw, pointer] of cases) {
      const res = await owner.api('POST', path, { raw, headers: { 'content-type': 'application/json' } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors, raw).toEqual([{ pointer, detail: expect.stringContaining('unpaired surrogate') }]);
    }
    // A pair is text like any other.
    expect(
      (
        await owner.api('POST', '/api/contacts', {
          raw: '{"email":"pair@example.com","first_name":"\\ud83d\\ude00"}',
          headers: { 'content-type': 'application/json' },
        })
      ).body.first_name,
    ).toBe('😀');
  });
});

describe('percent-encoding', () => {
  it('that does not decode, in a path id, is refused naming the path', async () => {
    for (const path of ['/api/contacts/%E0%A4%A', '/api/campaigns/%ZZ/send']) {
      const res = await owner.api(path.endsWith('send') ? 'POST' : 'GET', path);
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors, path).toEqual([{ pointer: 'path', detail: 'is not valid percent-encoding' }]);
    }
  });
});

describe('deep JSON', () => {
  it('is refused past 32 levels, 10,000 deep included, and the process goes on', async () => {
    const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const res = await owner.api('POST', '/api/contacts', {
      raw: `{"email":"deep@example.com","attributes":${deep(10_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].pointer).toBe('/attributes' + '/a'.repeat(31));
    expect(res.body.errors[0].detail).toBe('is nested more than 32 levels deep');
    const array = await owner.api('POST', '/api/contacts/import', {
      raw: '['.repeat(10_000) + ']'.repeat(10_000),
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(array, 400, 'validation_failed');
    // 30 levels inside attributes is within the limit.
    const fine = await owner.api('POST', '/api/contacts', {
      raw: `{"email":"deep@example.com","attributes":${deep(30)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(fine.status).toBe(201);
  });
});

describe('timestamps', () => {
  it('takes any RFC 3339 offset, also past ±15:59, as the same instant in UTC', async () => {
    for (const path of ['/api/tracking/bounces', '/api/events', '/api/payments', '/api/tracking/opens']) {
      const res = await owner.api('GET', `${path}?since=${encodeURIComponent('2026-01-01T00:00:00-17:12')}`);
      expect(res.status, path).toBe(200);
    }
    const key = await owner.api('POST', '/api/api-keys', { body: { name: 'far offset', expires_at: '2999-01-01T23:30:00+23:59' } });
    expect(key.status).toBe(201);
    expect(key.body.expires_at).toBe('2998-12-31T23:31:00.000Z');
  });

  it('refuses years PostgreSQL cannot store and dates that do not exist, naming the field', async () => {
    for (const since of ['0000-01-01T00:00:00Z', '0001-01-01T00:00:00+01:00', '2026-02-30T00:00:00Z', '2026-01-01T00:00:00+24:00']) {
      const res = await owner.api('GET', `/api/events?since=${encodeURIComponent(since)}`);
      expectProblem(res, 400, 'validation_failed');
      expect(new Set(res.body.errors.map((e: { pointer: string }) => e.pointer)), since).toEqual(new Set(['query.since']));
    }
    const res = await owner.api('POST', '/api/payments', {
      body: { email: 'p@example.com', amount: '1.00', currency: 'EUR', external_id: 'p-1', occurred_at: '0000-06-01T00:00:00Z' },
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors.map((e: { pointer: string }) => e.pointer)).toEqual(['/occurred_at']);
  });

  it('refuses cursors with extreme years or forged ids as cursors this API never issued', async () => {
    for (const cursor of [
      cursorOf('-271821-04-20T00:00:00.000Z'),
      cursorOf('+275760-09-13T00:00:00.000Z'),
      cursorOf('0000-01-01T00:00:00.000Z'),
      cursorOf('2026-01-01T00:00:00.000Z', 'ct_\u0000'),
    ]) {
      for (const path of ['/api/contacts', '/api/campaigns', '/api/events', '/api/tracking/bounces']) {
        const res = await owner.api('GET', `${path}?cursor=${cursor}`);
        expectProblem(res, 400, 'validation_failed');
        expect(res.body.errors, path).toEqual([{ pointer: 'query.cursor', detail: 'is not a cursor this API returned' }]);
      }
    }
  });
});

describe('query values', () => {
  it('may carry @ and : unencoded, as curl users type them', async () => {
    const created = await owner.api('POST', '/api/contacts', { body: { email: 'ada@example.com' } });
    expect(created.status).toBe(201);
    const byEmail = await owner.api('GET', '/api/contacts?email=ada@example.com');
    expect(byEmail.status).toBe(200);
    expect(byEmail.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
    const since = await owner.api('GET', '/api/contacts?created_after=2026-01-01T00:00:00Z');
    expect(since.status).toBe(200);
    expect((await owner.api('GET', '/api/events?since=2026-01-01T00:00:00Z')).status).toBe(200);
  });
});

describe('multipart uploads', () => {
  it('refuse a malformed part after the file with 400 invalid_multipart, storing nothing', async () => {
    const body =
      '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nemail\r\nmultipart@example.com\r\n--xx\r\nA header without a colon\r\n\r\nabc\r\n--xx--\r\n';
    const res = await owner.api('POST', '/api/contacts/import', { raw: body, headers: { 'content-type': 'multipart/form-data; boundary=xx' } });
    expectProblem(res, 400, 'invalid_multipart');
    expect((await owner.api('GET', '/api/contacts/import')).body.data).toEqual([]);
  });
});

describe('JSON values', () => {
  it('are taken with their own types, not coerced to the declared ones', async () => {
    for (const body of [
      { email: 'typed@example.com', status: 'subscribed', status_reason: false },
      { email: 'typed@example.com', first_name: 12 },
    ]) {
      const res = await owner.api('POST', '/api/contacts', { body });
      expectProblem(res, 400, 'validation_failed');
    }
    const campaign = await owner.api('POST', '/api/campaigns', {
      body: { name: 'n', subject: 's', from_email: 'a@example.com', content: 'c', track_clicks: null },
    });
    expectProblem(campaign, 400, 'validation_failed');
    expect(campaign.body.errors.map((e: { pointer: string }) => e.pointer)).toContain('/track_clicks');
  });
});

describe('routes', () => {
  it('answer 405 on a literal path with the methods of that path only', async () => {
    for (const method of ['OPTIONS', 'PUT', 'DELETE']) {
      const res = await owner.api(method, '/api/contacts/import');
      expectProblem(res, 405, 'method_not_allowed');
      expect(res.headers.get('allow'), method).toBe('GET, POST');
    }
  });
});

describe('oversized headers', () => {
  it('get a 431 problem document', async () => {
    const url = new URL('/api/auth/me', sendline.url);
    const answer = await new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
      const req = request(url, { headers: { 'x-padding': 'x'.repeat(20_000) } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, type: res.headers['content-type'], body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(431);
    expect(answer.type).toBe('application/problem+json');
    expect(JSON.parse(answer.body)).toMatchObject({ status: 431, code: 'headers_too_large', success: false });
  });
});

describe('without response validation (the production default)', () => {
  it('refuses the same requests with the same problems, and takes the same good ones', async () => {
    // Its validator is given the contract without responses: request checks must not change.
    const production = await startTestServer({ VALIDATE_RESPONSES: 'false' });
    try {
      const other = await newAccount(production.url, 'bad-input-production');
      const cases: [string, string, unknown][] = [
        ['POST', '/api/contacts', { email: 5 }],
        ['POST', '/api/contacts', { email: 'x@example.com', unknown: 1 }],
        ['POST', '/api/contacts', { email: 'x@example.com', tags: 'one' }],
        ['GET', '/api/contacts?limit=abc', undefined],
        ['GET', '/api/contacts?bogus=1', undefined],
        ['GET', '/api/contacts?status=weird', undefined],
        ['POST', '/api/campaigns', {}],
        ['POST', '/api/segments/preview', { rules: { all: [{ field: 'email' }] } }],
        ['POST', '/api/emails', { to: [], from: 'a@example.com', subject: 's', text: 't' }],
        ['POST', '/api/lists', { name: 5 }],
        ['POST', '/api/webhooks', { url: 'not a url', events: ['nope'] }],
        ['POST', '/api/contacts', { email: 'good@example.com', first_name: 'Ada' }],
        ['GET', '/api/contacts?limit=2', undefined],
      ];
      for (const [method, path, body] of cases) {
        const [checked, unchecked] = [await owner.api(method, path, { body }), await other.api(method, path, { body })];
        const shape = (res: typeof checked) => ({ status: res.status, code: res.body?.code, errors: res.body?.errors });
        expect(shape(unchecked), `${method} ${path}`).toEqual(shape(checked));
      }
    } finally {
      await production.stop();
    }
  });
});

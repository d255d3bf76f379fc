/**
 * Input no handler can use gets a 4xx problem with a stable code and the field at fault, never a
 * 500: NUL characters, deep JSON, timestamps and cursors PostgreSQL cannot store, malformed
 * multipart bodies, oversized headers, JSON values of the wrong type.
 */
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

describe('deep JSON', () => {
  it('is refused past 32 levels, 10,000 deep included, and the process goes on', async () => {
    const deep = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    const res = await owner.api('POST', '/api/contacts', { raw: `{"email":"deep@example.com","attributes":${deep(10_000)}}`, headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].pointer).toBe('/attributes' + '/a'.repeat(31));
    expect(res.body.errors[0].detail).toBe('is nested more than 32 levels deep');
    const array = await owner.api('POST', '/api/contacts/import', { raw: '['.repeat(10_000) + ']'.repeat(10_000), headers: { 'content-type': 'application/json' } });
    expectProblem(array, 400, 'validation_failed');
    // 30 levels inside attributes is within the limit.
    const fine = await owner.api('POST', '/api/contacts', { raw: `{"email":"deep@example.com","attributes":${deep(30)}}`, headers: { 'content-type': 'application/json' } });
    expect(fine.status).toBe(201);
  });
});

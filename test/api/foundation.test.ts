import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { implementedHandlers } from '../../server/app.ts';
import { migrations } from '../../server/db/migrations/index.ts';
import { listOperations, loadContract } from '../../server/contract/document.ts';
import { client, expectProblem, newAccount, startTestServer, type TestAccount } from '../helpers.ts';

let sendline: Sendline;
let owner: TestAccount;

beforeAll(async () => {
  sendline = await startTestServer({ BODY_LIMIT_BYTES: '4096' });
  owner = await newAccount(sendline.url);
});
afterAll(() => sendline.stop());

describe('service endpoints', () => {
  it('answers health (with the release and the schema migration level) and readiness', async () => {
    const anon = client(sendline.url);
    expect((await anon('GET', '/healthz')).body).toEqual({
      status: 'ok',
      version: JSON.parse(readFileSync('package.json', 'utf8')).version,
      migration: migrations.at(-1)!.name,
      migrations: migrations.length,
    });
    expect((await anon('GET', '/readyz')).body).toEqual({ status: 'ready' });
  });

  it('serves the contract and a local API reference', async () => {
    const anon = client(sendline.url);
    const json = await anon('GET', '/api/openapi.json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toBe('3.0.0');
    expect(json.body.paths['/campaigns']).toBeDefined();
    const yaml = await anon('GET', '/api/v1/openapi.yaml');
    expect(yaml.body).toContain('operationId: Campaigns_create');
    const docs = await anon('GET', '/docs');
    expect(docs.body).toContain('/docs/scalar.js');
    expect(docs.body).not.toMatch(/https?:\/\/(cdn|unpkg|fonts)/);
    const bundle = await fetch(sendline.url + '/docs/scalar.js');
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});

describe('the reference', () => {
  it('names the server at the address it was fetched from, whatever the port', async () => {
    const anon = client(sendline.url);
    expect((await anon('GET', '/api/openapi.json')).body.servers).toEqual([{ url: `${sendline.url}/api/v1` }]);
    expect((await anon('GET', '/api/openapi.yaml')).body).toContain(`servers:\n- url: ${sendline.url}/api/v1\n`);
    // As a reverse proxy forwards it (fetch may not set Host).
    const proxied = await new Promise<string>((resolve, reject) => {
      request(new URL('/api/openapi.json', sendline.url), { headers: { host: 'mail.example.org' } }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve(body));
      })
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(proxied).servers).toEqual([{ url: 'http://mail.example.org/api/v1' }]);
  });

  it('serves the error catalogue that problem types link to, one anchor per code', async () => {
    const problems = [
      await owner.api('GET', '/api/nothing-here'),
      await owner.api('POST', '/api/contacts', { body: { email: 'not an email' } }),
      await client(sendline.url)('GET', '/api/auth/me'),
    ];
    for (const problem of problems) {
      const link = new URL(problem.body.type, sendline.url + '/api/v1/contacts');
      const page = await fetch(link);
      expect(page.status, link.href).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain(`<section id="${link.hash.slice(1)}">`);
    }
  });
});

describe('one API under three prefixes', () => {
  it.each(['/api', '/api/v1', '/v1'])('serves %s/auth/me the same way with API-Version', async (prefix) => {
    const res = await owner.api('GET', `${prefix}/auth/me`);
    expect(res.status).toBe(200);
    expect(res.body.user.id).toBe(owner.userId);
    expect(res.headers.get('api-version')).toBe('1.0');
  });
});

describe('errors are RFC 9457 problems', () => {
  it('answers 404 for an unknown route', async () => {
    expectProblem(await owner.api('GET', '/api/nothing-here'), 404, 'not_found');
    expectProblem(await owner.api('GET', '/elsewhere'), 404, 'not_found');
  });

  it('answers 405 with Allow for a known path and a wrong method', async () => {
    const res = await owner.api('PATCH', '/api/campaigns');
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  it('answers 415 for a body that is not JSON', async () => {
    const res = await owner.api('POST', '/api/api-keys', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('answers 413 past the body limit', async () => {
    const res = await owner.api('POST', '/api/api-keys', { body: { name: 'x'.repeat(5000) } });
    expectProblem(res, 413, 'payload_too_large');
  });

  it('answers 400 invalid_json for malformed JSON', async () => {
    const res = await owner.api('POST', '/api/api-keys', { raw: '{"name":', headers: { 'content-type': 'application/json' } });
    expectProblem(res, 400, 'invalid_json');
  });

  it('names every field at fault, unknown fields included', async () => {
    const res = await owner.api('POST', '/api/api-keys', { body: { name: '', scopes: ['admin'], is_admin: true } });
    expectProblem(res, 400, 'validation_failed');
    const pointers = res.body.errors.map((e: { pointer: string }) => e.pointer).sort();
    expect(pointers).toEqual(['/is_admin', '/name', '/scopes/0']);
  });

  it('rejects unknown fields in nested objects and unknown query parameters', async () => {
    const nested = await owner.api('POST', '/api/campaigns', {
      body: { name: 'n', subject: 's', from_email: 'a@example.com', content: 'c', audience: { tags_any: ['a'], role: 'x' } },
    });
    expectProblem(nested, 400, 'validation_failed');
    expect(nested.body.errors).toContainEqual({ pointer: '/audience/role', detail: 'is not a known field' });
    const query = await owner.api('GET', '/api/users?sort=email');
    expectProblem(query, 400, 'validation_failed');
    expect(query.body.errors[0].pointer).toBe('query.sort');
  });

  it('validates query parameters against the contract', async () => {
    const res = await owner.api('GET', '/api/users?limit=501');
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors[0].pointer).toBe('query.limit');
  });

  it('implements every operation of the contract (the router answers 501 for any it does not)', () => {
    const ids = listOperations(loadContract()).map((op) => op.operationId);
    expect(ids.length).toBeGreaterThan(60);
    expect(ids.filter((id) => !(id in implementedHandlers))).toEqual([]);
  });

  it('checks authentication before validation', async () => {
    const res = await client(sendline.url)('POST', '/api/api-keys', { body: { bogus: true } });
    expectProblem(res, 401, 'authentication_required');
    expect(res.headers.get('www-authenticate')).toContain('Bearer');
  });
});

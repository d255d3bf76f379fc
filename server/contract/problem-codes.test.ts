import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';
import { describe, expect, it } from 'vitest';
import { loadContract } from './document.ts';
import { docsRouter } from '../docs/routes.ts';
import { Problem } from './problem.ts';
import { refuseUndeclaredCodes } from '../http/errors.ts';
import { PROBLEM_STATUS, declaredProblemCodes, problemCatalogue } from './problem-codes.ts';

const SERVER = fileURLToPath(new URL('..', import.meta.url));
const doc = loadContract();
// Read as plain JSON where a test walks the whole document.
const raw: any = doc;

/** The codes the server's source gives problems: `new Problem(404, 'not_found', …)`, `forbidden('…')`, the webhook URL checks. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  const patterns = [/new Problem\(\s*\d{3},\s*'([a-z_]+)'/g, /\b(?:forbidden|conflict|unauthorized)\(\s*'([a-z_]+)'/g];
  for (const file of readdirSync(SERVER, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const text = readFileSync(path.join(SERVER, file), 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.add(match[1]);
    if (file.endsWith(path.join('webhooks', 'address-guard.ts'))) for (const match of text.matchAll(/\bcode: '([a-z_]+)'/g)) codes.add(match[1]);
  }
  return codes;
}

interface ProblemResponse {
  operation: string;
  status: number;
  codes: string[];
}

/** Every error response of every operation in the contract, with the literal codes it declares. */
function errorResponses(): ProblemResponse[] {
  const schemas: Record<string, { properties: { code: { enum?: string[] } } }> = raw.components.schemas;
  const out: ProblemResponse[] = [];
  for (const item of Object.values<
    Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: { $ref: string } }> }> }>
  >(raw.paths)) {
    for (const op of Object.values(item)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const problem = response.content?.['application/problem+json'];
        if (!problem) continue;
        const name = problem.schema.$ref.replace('#/components/schemas/', '');
        out.push({ operation: op.operationId, status: Number(status), codes: schemas[name].properties.code.enum ?? [] });
      }
    }
  }
  return out;
}

describe('the problem code catalogue', () => {
  it("is the contract's ProblemCode, and lists every code the server answers with, and only those", () => {
    const source = codesInSource();
    const catalogue = problemCatalogue(doc).map((entry) => entry.code);
    expect(source.size).toBeGreaterThan(30);
    expect(catalogue.sort()).toEqual([...source].sort());
    expect(Object.keys(PROBLEM_STATUS).sort()).toEqual(catalogue.sort());
  });

  it('gives every code its meaning from the spec', () => {
    for (const { code, meaning } of problemCatalogue(doc)) expect(meaning, code).toMatch(/^\S.*\.$/);
    expect(problemCatalogue(doc).find((entry) => entry.code === 'contact_exists')?.meaning).toBe(
      'A contact with this email exists in the account; `existing_id` names it.',
    );
  });

  it("types each operation's error responses with literal codes of that status", () => {
    const responses = errorResponses();
    expect(responses.length).toBeGreaterThan(300);
    for (const { operation, status, codes } of responses) {
      expect(codes.length, `${operation} ${status}`).toBeGreaterThan(0);
      for (const code of codes) expect(PROBLEM_STATUS[code as keyof typeof PROBLEM_STATUS], `${operation} ${status} ${code}`).toBe(status);
    }
  });

  it('declares the codes an operation answers beyond the common ones', () => {
    const codesOf = (operation: string, status: number) => responses.find((r) => r.operation === operation && r.status === status)?.codes;
    const responses = errorResponses();
    expect(codesOf('Campaigns_pause', 409)).toEqual(['invalid_state_transition', 'idempotency_key_in_use']);
    expect(codesOf('Contacts_create', 409)).toEqual(['contact_exists', 'idempotency_key_in_use']);
    expect(codesOf('Contacts_replace', 409)).toEqual(['contact_exists']);
    expect(codesOf('Users_delete', 409)).toEqual(['last_owner']);
    expect(codesOf('Users_create', 403)).toEqual(['insufficient_scope', 'ip_not_allowed', 'session_required', 'insufficient_role']);
    expect(codesOf('Auth_login', 401)).toEqual(['invalid_credentials']);
    expect(codesOf('ContactImports_create', 413)).toEqual(['payload_too_large', 'too_many_rows']);
    expect(codesOf('Webhooks_create', 422)).toEqual(['invalid_url', 'insecure_url', 'unsafe_url', 'idempotency_key_reused']);
    expect(codesOf('Contacts_get', 404)).toEqual(['not_found']);
  });

  it('declares the Idempotency-Key codes on every POST that stores answers, and only there', () => {
    const responses = errorResponses();
    const unauthenticated = ['Auth_login', 'Auth_register', 'Auth_refresh', 'PublicLists_subscribe'];
    const posts = Object.values<any>(raw.paths)
      .map((item) => item.post?.operationId as string | undefined)
      .filter((id): id is string => Boolean(id));
    expect(posts.length).toBeGreaterThan(20);
    for (const operation of posts) {
      expect(responses.find((r) => r.operation === operation && r.status === 400)?.codes, operation).toContain('invalid_idempotency_key');
      if (unauthenticated.includes(operation)) continue;
      expect(responses.find((r) => r.operation === operation && r.status === 409)?.codes, operation).toContain('idempotency_key_in_use');
      expect(responses.find((r) => r.operation === operation && r.status === 422)?.codes, operation).toContain('idempotency_key_reused');
    }
    const idempotencyCodes = ['invalid_idempotency_key', 'idempotency_key_in_use', 'idempotency_key_reused'];
    const elsewhere = responses.filter((r) => !posts.includes(r.operation) && r.codes.some((code) => idempotencyCodes.includes(code)));
    expect(elsewhere).toEqual([]);
  });
});

describe('with responses validated', () => {
  it('passes a declared problem on and turns an undeclared one into a server error', () => {
    const check = refuseUndeclaredCodes('Campaigns_pause', declaredProblemCodes(doc, '/campaigns/{id}/pause', 'post'));
    const passed: unknown[] = [];
    const answer = (error: Problem) => check(error, {} as Request, {} as Response, (next?: unknown) => passed.push(next));
    const declared = new Problem(409, 'invalid_state_transition', 'A draft campaign cannot pause.');
    answer(declared);
    answer(new Problem(500, 'internal_error', 'Something went wrong.'));
    answer(new Problem(409, 'contact_exists', 'A contact with this email exists.'));
    answer(new Problem(403, 'insufficient_role', 'This operation takes the role owner.'));
    expect(passed.slice(0, 2)).toEqual([declared, expect.objectContaining({ code: 'internal_error' })]);
    expect(passed.slice(2).map((e) => (e as Error).message)).toEqual([
      'Campaigns_pause answered 409 contact_exists, which the contract does not declare for it',
      'Campaigns_pause answered 403 insufficient_role, which the contract does not declare for it',
    ]);
  });
});

describe('/docs/errors', () => {
  it("renders the contract's catalogue, one section per code anchored by it", async () => {
    const server = express().use(docsRouter(doc, 'http://localhost')).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/errors`);
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(html.match(/<section id="/g)).toHaveLength(problemCatalogue(doc).length);
      expect(html).toContain(`<section id="contact_exists">
  <h2><code>contact_exists</code></h2>
  <p>409 Conflict</p>
  <p>A contact with this email exists in the account; <code>existing_id</code> names it.</p>`);
    } finally {
      server.close();
    }
  });
});

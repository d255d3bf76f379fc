import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';

let queuing: Sendline;
let exporting: Sendline;
beforeAll(async () => {
  [queuing, exporting] = await Promise.all([
    // No worker of its own: the exports it accepts stay queued unless another test file's worker runs them.
    startTestServer({ SENDLINE_ROLE: 'api', EXPORT_MAX_CONCURRENT: '2' }),
    startTestServer({ EXPORT_MAX_KEPT: '2' }),
  ]);
});
afterAll(() => Promise.all([queuing?.stop(), exporting?.stop()]));

describe('export limits', () => {
  it('refuses an account more exports at once than EXPORT_MAX_CONCURRENT, in parallel too, and no other account', async () => {
    const account = await newAccount(queuing.url, 'export-limit');
    const other = await newAccount(queuing.url, 'export-limit-other');
    const answers = await Promise.all(Array.from({ length: 12 }, () => account.api('POST', '/api/contacts/exports', { body: {} })));
    const accepted = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status !== 202);
    for (const res of refused) {
      expectProblem(res, 429, 'too_many_exports');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Another test file's worker may finish one of them meanwhile, which makes room for one more.
    const finished = await queuing.pool.query("select count(*)::int as n from contact_exports where account_id = $1 and status in ('completed', 'failed')", [
      account.accountId,
    ]);
    expect(accepted.length).toBeGreaterThanOrEqual(2);
    expect(accepted.length).toBeLessThanOrEqual(2 + finished.rows[0].n);
    expect(refused.length).toBeGreaterThan(0);
    expect((await other.api('POST', '/api/contacts/exports', { body: {} })).status).toBe(202);
  });

  it('keeps the newest EXPORT_MAX_KEPT finished exports of an account and deletes older ones with their CSV', async () => {
    const account = await newAccount(exporting.url, 'export-kept');
    const other = await newAccount(exporting.url, 'export-kept-other');
    expect((await account.api('POST', '/api/contacts', { body: { email: 'kept@example.com' } })).status).toBe(201);
    const run = async (owner: TestAccount) => {
      const started = await owner.api('POST', '/api/contacts/exports', { body: {} });
      expect(started.status).toBe(202);
      await waitFor(async () => (await owner.api('GET', `/api/contacts/exports/${started.body.id}`)).body.status === 'completed', 30_000);
      return started.body.id as string;
    };
    const othersExport = await run(other);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await run(account));
    for (const id of ids.slice(0, 2)) expectProblem(await account.api('GET', `/api/contacts/exports/${id}`), 404, 'not_found');
    for (const id of ids.slice(2)) expect((await account.api('GET', `/api/contacts/exports/${id}/download`)).body).toContain('kept@example.com');
    const chunks = await exporting.pool.query('select distinct export_id from contact_export_chunks where export_id = any($1) order by export_id', [ids]);
    expect(chunks.rows.map((r) => r.export_id)).toEqual(ids.slice(2).sort());
    // Another account's exports are not counted against this one's.
    expect((await other.api('GET', `/api/contacts/exports/${othersExport}`)).body.status).toBe('completed');
  });
});

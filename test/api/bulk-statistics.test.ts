import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHOWN_CONTACT_COLUMNS, matching } from '../../server/contacts/repository.ts';
import { statement } from '../../server/db/kysely.ts';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, waitFor } from '../helpers.ts';
import { fileDatabaseUrl } from '../databases.ts';

let sendline: Sendline;

beforeAll(async () => {
  sendline = await startTestServer();
});
afterAll(() => sendline.stop());

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan PostgreSQL picks for a page of `GET /contacts`, as the contacts' repository builds it. */
async function pagePlan(db: pg.Client, accountId: string, after: { at: Date; id: string } | null): Promise<PlanNode[]> {
  let query = matching(statement.selectFrom('contacts').select(SHOWN_CONTACT_COLUMNS), accountId, {});
  if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
  const { sql, parameters } = query.orderBy('created_at').orderBy('id').limit(51).compile();
  const { rows } = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (format json) ${sql}`, parameters as unknown[]);
  return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
}

/**
 * When `table` was last analysed by an ANALYZE statement (autovacuum's analyses set
 * `last_autoanalyze` instead, so a long import that autovacuum analysed meanwhile does not count).
 */
async function lastAnalyze(table: string): Promise<number> {
  const { rows } = await sendline.pool.query<{ at: Date | null }>('select last_analyze as at from pg_stat_user_tables where relname = $1', [table]);
  return rows[0]?.at?.getTime() ?? 0;
}

describe('a list right after an import', () => {
  // 20,000 contacts imported from a CSV: beside the other files on 2 cores it takes tens of seconds.
  it('is planned on the statistics the import left: the page read in index order, no sort of the account', { timeout: 120_000 }, async () => {
    const account = await newAccount(sendline.url, 'analysed');
    const before = await lastAnalyze('contacts');
    const csv = 'email,first_name,last_name\n' + Array.from({ length: 20_000 }, (_, i) => `analysed${i}@example.com,First${i},Last${i % 97}`).join('\n');
    const upload = await account.api('POST', '/api/contacts/import', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(upload.status).toBe(202);
    const done = await waitFor(async () => {
      const res = await account.api('GET', `/api/contacts/import/${upload.body.id}`);
      return res.body.status === 'completed' && res.body;
    }, 100_000);
    expect(done).toMatchObject({ created: 20_000 });
    const imported = await lastAnalyze('contacts');
    expect(imported).toBeGreaterThan(before);

    const page = await account.api('GET', '/api/contacts?limit=50');
    const last = page.body.data.at(-1);
    const db = new pg.Client({ connectionString: fileDatabaseUrl() });
    await db.connect();
    try {
      for (const after of [null, { at: new Date(last.created_at), id: last.id }]) {
        const plan = await pagePlan(db, account.accountId, after);
        expect(plan.map((n) => n['Node Type'])).not.toContain('Sort');
        expect(plan.map((n) => n['Node Type'])).not.toContain('Bitmap Heap Scan');
        expect(plan.find((n) => n['Node Type'].startsWith('Index'))?.['Index Name']).toBe('contacts_account_created');
      }
    } finally {
      await db.end();
    }

    // A bulk request analyses too, after it has answered: 5,000 contacts are at least a tenth of the table.
    const tagged = await account.api('POST', '/api/tags/bulk', {
      body: { add: ['analysed'], emails: Array.from({ length: 5_000 }, (_, i) => `analysed${i}@example.com`) },
    });
    expect(tagged.body).toMatchObject({ changed: 5_000 });
    await waitFor(async () => (await lastAnalyze('contacts')) > imported);
  });
});

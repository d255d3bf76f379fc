import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { matching, type ContactFilters } from './repository.ts';

/** How long an exact count of filtered contacts may take before the planner's estimate is answered instead. */
const COUNT_TIMEOUT_MS = 2_000;

/** PostgreSQL's `query_canceled`: `statement_timeout` ran out. */
const QUERY_CANCELED = '57014';

/**
 * How many of the account's contacts `filters` match. With no filter but `status`, the counters
 * the statements that write contacts keep per account and status answer exactly at any size. Otherwise the
 * contacts are counted, within COUNT_TIMEOUT_MS; past it, the planner's estimate answers
 * (`exact: false`), so that a count never holds a connection longer than that.
 */
export async function countContacts(
  db: Db,
  transactions: Transactions,
  accountId: string,
  filters: ContactFilters,
): Promise<{ count: number; exact: boolean }> {
  const { status, ...others } = filters;
  if (!Object.values(others).some(Boolean)) {
    const row = await db
      .selectFrom('contact_status_counts')
      .select(sql<string>`coalesce(sum(count), 0)`.as('n'))
      .where('account_id', '=', accountId)
      .$if(status !== undefined, (q) => q.where('status', '=', status!))
      .executeTakeFirstOrThrow();
    return { count: Number(row.n), exact: true };
  }
  try {
    const row = await transactions.run(async (trx) => {
      await sql`set local statement_timeout = ${sql.lit(COUNT_TIMEOUT_MS)}`.execute(trx);
      return matching(trx.selectFrom('contacts').select(sql<string>`count(*)`.as('n')), accountId, filters).executeTakeFirstOrThrow();
    });
    return { count: Number(row.n), exact: true };
  } catch (error) {
    if ((error as { code?: unknown }).code !== QUERY_CANCELED) throw error;
  }
  const [plan] = await matching(db.selectFrom('contacts').select('id'), accountId, filters).explain('json');
  const rows = (plan['QUERY PLAN'] as { Plan: { 'Plan Rows': number } }[])[0].Plan['Plan Rows'];
  return { count: Math.round(rows), exact: false };
}

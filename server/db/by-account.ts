import { sql } from 'kysely';
import type { Db } from './kysely.ts';

/**
 * The accounts of the rows of `table` with these ids, each with its ids, in account then id
 * order: what a statement that locks rows by id alone (a batch of tracking hits of any
 * accounts) does in turn per account, since under Citus a locking statement stays on one shard.
 * Locks taken in this order, by every process, never deadlock.
 */
export async function idsByAccount(db: Db, table: 'messages' | 'emails', ids: readonly string[]): Promise<[accountId: string, ids: string[]][]> {
  if (!ids.length) return [];
  const { rows } = await sql<{ account_id: string; ids: string[] }>`
    select account_id, array_agg(id order by id) as ids from ${sql.table(table)} where id = any(${ids}::text[]) group by account_id order by account_id`.execute(
    db,
  );
  return rows.map((row) => [row.account_id, row.ids]);
}

/** The account of the row of `table` with this id (found without a lock; under Citus, on every shard), or null. */
export async function accountOfId(db: Db, table: 'messages' | 'emails', id: string): Promise<string | null> {
  const { rows } = await sql<{ account_id: string }>`select account_id from ${sql.table(table)} where id = ${id}`.execute(db);
  return rows[0]?.account_id ?? null;
}

/**
 * `items` grouped by account, in account order: a batch's writes as one statement per account,
 * which under Citus stays on that account's shard where a join on the pairs would run on all.
 */
export function groupByAccount<T>(items: readonly T[], accountOf: (item: T) => string): [accountId: string, items: T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const accountId = accountOf(item);
    const group = groups.get(accountId);
    if (group) group.push(item);
    else groups.set(accountId, [item]);
  }
  return [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

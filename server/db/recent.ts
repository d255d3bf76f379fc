import type { Pool } from './pool.ts';
import { decodeCursor, toPage, type Page } from '../http/pagination.ts';

/** Conditions on a list query; `?` in each is its one parameter. */
export type Conditions = [sql: string, value: unknown][];

/**
 * One page of an account's records, newest first by `(occurred_at, id)` with keyset cursors:
 * the shape of every tracking, conversion and payment list.
 */
export async function recentPage<T>(
  pool: Pool,
  query: { table: string; columns: string; accountId: string; conditions: Conditions; limit: number; cursor?: string },
  shape: (row: Record<string, any>) => T,
): Promise<Page<T>> {
  const after = decodeCursor(query.cursor);
  const params: unknown[] = [query.accountId];
  const where = ['account_id = $1'];
  for (const [sql, value] of query.conditions) {
    if (value === undefined || value === null || value === '') continue;
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  }
  if (after) {
    params.push(after.at, after.id);
    where.push(`(occurred_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(query.limit + 1);
  const { rows } = await pool.query(
    `select ${query.columns} from ${query.table} where ${where.join(' and ')} order by occurred_at desc, id desc limit $${params.length}`,
    params,
  );
  return toPage(rows, query.limit, (r) => ({ at: r.occurred_at, id: r.id }), shape);
}

import { sql, type SelectQueryBuilder, type SqlBool, type StringReference } from 'kysely';
import type { Cursor } from '../contract/pagination.ts';

/** The MikroORM filter for rows after `cursor` in `(createdAt, id)` order. */
export function afterCursor(cursor: Cursor | null) {
  if (!cursor) return {};
  return { $or: [{ createdAt: { $gt: cursor.at } }, { createdAt: cursor.at, id: { $gt: cursor.id } }] };
}

/** MikroORM's find options for the `limit + 1` entities of a page in `(createdAt, id)` order (`keysetPage`'s). */
export function createdPageOptions(limit: number) {
  return { orderBy: { createdAt: 'asc', id: 'asc' }, limit: limit + 1 } as const;
}

/**
 * A list's keyset order: a time column, an id column breaking its ties (the `at` and `id` of a
 * `Cursor`), both ascending or both descending, so that one row comparison finds the rows after
 * a cursor on the `(time, id)` index.
 */
export interface KeysetOrder<DB, TB extends keyof DB> {
  at: StringReference<DB, TB>;
  id: StringReference<DB, TB>;
  direction: 'asc' | 'desc';
}

/** Most lists' orders: by `created_at`, then `id`. */
export const OLDEST_FIRST = { at: 'created_at', id: 'id', direction: 'asc' } as const;
export const NEWEST_FIRST = { at: 'created_at', id: 'id', direction: 'desc' } as const;

/** `query` in `order`, from the row after `after` on (from the first without it); unlimited, for walks. */
export function inKeysetOrder<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: KeysetOrder<DB, TB>,
  after: Cursor | null,
): SelectQueryBuilder<DB, TB, O> {
  const past = order.direction === 'asc' ? '>' : '<';
  const from = after ? query.where((eb) => sql<SqlBool>`${eb.refTuple(order.at, order.id)} ${sql.raw(past)} (${after.at}, ${after.id})`) : query;
  return from.orderBy(order.at, order.direction).orderBy(order.id, order.direction);
}

/** The `limit + 1` rows of `query` after `after` in `order`: the extra one tells `toPage` there is a next page. */
export function keysetPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  order: KeysetOrder<DB, TB>,
  after: Cursor | null,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  return inKeysetOrder(query, order, after).limit(limit + 1);
}

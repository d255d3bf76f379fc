import type { Cursor } from '../contract/pagination.ts';

/** The MikroORM filter for rows after `cursor` in `(createdAt, id)` order. */
export function afterCursor(cursor: Cursor | null) {
  if (!cursor) return {};
  return { $or: [{ createdAt: { $gt: cursor.at } }, { createdAt: cursor.at, id: { $gt: cursor.id } }] };
}

export const CREATED_ORDER = { createdAt: 'asc', id: 'asc' } as const;

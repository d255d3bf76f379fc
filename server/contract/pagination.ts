import { validationFailed } from './problem.ts';
import { isStorableInstant } from './timestamps.ts';

/** Keyset position: the sort key of the last item of a page. */
export interface Cursor {
  at: Date;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at.toISOString(), cursor.id])).toString('base64url');
}

export function decodeCursor(raw: string | undefined): Cursor | null {
  if (!raw) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as [string | number, unknown];
    const date = new Date(at);
    // Checked like any input: the cursor is the client's to forge.
    if (typeof id !== 'string' || id.length > 64 || id.includes('\u0000') || !isStorableInstant(date)) throw new Error('shape');
    return { at: date, id };
  } catch {
    throw validationFailed([{ pointer: 'query.cursor', detail: 'is not a cursor this API returned' }]);
  }
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

/**
 * Builds a page from `limit + 1` rows fetched in sort order: the extra row only says whether
 * another page exists.
 */
export function toPage<Row, Item>(rows: Row[], limit: number, key: (row: Row) => Cursor, shape: (row: Row) => Item): Page<Item> {
  return pageOf(rows, limit, (row) => encodeCursor(key(row)), shape);
}

/** `toPage` for a list whose cursors are not `[time, id]` (contacts sorted by email): `cursorOf` writes them. */
export function pageOf<Row, Item>(rows: Row[], limit: number, cursorOf: (row: Row) => string, shape: (row: Row) => Item): Page<Item> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(shape),
    next_cursor: hasMore && last ? cursorOf(last) : null,
    has_more: hasMore,
  };
}

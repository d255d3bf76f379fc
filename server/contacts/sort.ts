import type { components } from '../../generated/openapi.d.ts';
import { decodeCursor, encodeCursor } from '../contract/pagination.ts';
import { validationFailed } from '../contract/problem.ts';
import { isStorableInstant } from '../contract/timestamps.ts';

export type ContactSort = components['schemas']['ContactSort'];

/**
 * Where a page of contacts ends, in its order: the sort key of its last contact (a time, or the
 * lower-cased email) and its id. Email sorts compare the lower-cased address byte by byte (the
 * order of the `text_pattern_ops` index on it, whatever the database's collation).
 */
export type SortPosition = { sort: 'created_at' | '-created_at'; at: Date; id: string } | { sort: 'email' | '-email'; email: string; id: string };

export const sortsByEmail = (sort: ContactSort): sort is 'email' | '-email' => sort === 'email' || sort === '-email';
export const descending = (sort: ContactSort) => sort.startsWith('-');

/** The position after `contact` in `sort` order. */
export function positionOf(sort: ContactSort, contact: { createdAt: Date; email: string; id: string }): SortPosition {
  return sortsByEmail(sort) ? { sort, email: contact.email.toLowerCase(), id: contact.id } : { sort, at: contact.createdAt, id: contact.id };
}

/**
 * A cursor holds its order: `created_at` ones are the `[time, id]` every other list uses (so that
 * cursors handed out before sorting existed keep working); the others name their order first.
 */
export function encodeSortCursor(position: SortPosition): string {
  if (position.sort === 'created_at') return encodeCursor(position);
  const key = 'at' in position ? position.at.toISOString() : position.email;
  return Buffer.from(JSON.stringify([position.sort, key, position.id])).toString('base64url');
}

const notOurs = (detail = 'is not a cursor this API returned') => validationFailed([{ pointer: 'query.cursor', detail }]);

function parse(raw: string): unknown[] {
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(value)) return value;
  } catch {
    // Answered below, as any other shape.
  }
  throw notOurs();
}

/** The position a cursor holds; one returned for another order answers 400 at `query.cursor`. */
export function decodeSortCursor(sort: ContactSort, raw: string | undefined): SortPosition | null {
  if (!raw) return null;
  const parts = parse(raw);
  const cursorSort = parts.length === 2 ? 'created_at' : parts[0];
  if (cursorSort !== sort) throw notOurs(`was returned for another order than sort=${sort}: start again without it`);
  if (sort === 'created_at') return { sort, ...decodeCursor(raw)! };
  const [, key, id] = parts;
  // Checked like any input: the cursor is the client's to forge.
  if (parts.length !== 3 || typeof key !== 'string' || typeof id !== 'string' || id.length > 64 || `${key}${id}`.includes('\u0000')) throw notOurs();
  if (sortsByEmail(sort)) {
    if (key.length > 254) throw notOurs();
    return { sort, email: key, id };
  }
  const at = new Date(key);
  if (!isStorableInstant(at)) throw notOurs();
  return { sort: '-created_at', at, id };
}

import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { csvLine } from '../http/csv.ts';
import type { ContactStatus } from '../contacts/rules.ts';
import { matching, type ContactFilters } from '../contacts/repository.ts';

/** The filters of `GET /contacts`, as an export stores them. */
export interface ExportFilters {
  status?: ContactStatus;
  tag?: string;
  email?: string;
  q?: string;
  created_after?: string;
  created_before?: string;
}

export const FIXED_COLUMNS = ['email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'created_at', 'updated_at'];

/** Attribute keys beyond this many are left out of the columns (a header of thousands of columns helps nobody). */
export const MAX_ATTRIBUTE_COLUMNS = 500;
/**
 * Contacts read per query, in `(created_at, id)` order: few enough that a batch is garbage
 * before V8's young generation promotes it (5,000 at a time grew the old generation by 200 MB).
 */
const READ_BATCH = 1000;
/**
 * A chunk is written once it holds this much CSV; chunks end at line ends. Small enough that its
 * text, and the hex pg writes and reads a bytea as, stay under V8's 128 KB large-object size:
 * larger strings are born in the old generation, which grew the server by 250 MB an export.
 */
export const CHUNK_BYTES = 48 * 1024;

/** The stored filters as `GET /contacts` takes them. */
const contactFilters = (f: ExportFilters): ContactFilters => ({
  status: f.status,
  tag: f.tag,
  email: f.email,
  q: f.q,
  createdAfter: f.created_after ? new Date(f.created_after) : undefined,
  createdBefore: f.created_before ? new Date(f.created_before) : undefined,
});

/** An attribute's value as a cell: text as it is, anything else as JSON. */
const attributeCell = (value: unknown): string | null =>
  value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * The CSV of the contacts that match, as chunks of whole lines: the header, then one line per
 * contact in `(created_at, id)` order. Memory holds one batch of rows and one chunk at a time.
 */
export async function* exportCsv(db: Db, accountId: string, filters: ExportFilters): AsyncGenerator<{ data: Buffer; rows: number }> {
  const wanted = contactFilters(filters);
  const keys = (
    await matching(db.selectFrom('contacts'), accountId, wanted)
      .select(sql<string>`jsonb_object_keys(attributes)`.as('key'))
      .distinct()
      .orderBy('key')
      .limit(MAX_ATTRIBUTE_COLUMNS)
      .execute()
  ).map((r) => r.key);
  let chunk = csvLine([...FIXED_COLUMNS, ...keys]);
  let rows = 0;
  let after: { at: Date; id: string } | null = null;
  for (;;) {
    let query = matching(
      db.selectFrom('contacts').select(['id', 'email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'attributes', 'created_at', 'updated_at']),
      accountId,
      wanted,
    );
    if (after) {
      const { at, id } = after;
      query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(at, id)));
    }
    const batch = await query.orderBy('created_at').orderBy('id').limit(READ_BATCH).execute();
    for (const c of batch) {
      const cells: (string | null)[] = [
        c.email,
        c.first_name,
        c.last_name,
        c.status,
        c.status_reason,
        c.tags.join(';'),
        c.created_at.toISOString(),
        c.updated_at.toISOString(),
      ];
      for (const key of keys) cells.push(attributeCell(c.attributes[key]));
      chunk += csvLine(cells);
      rows++;
      if (chunk.length >= CHUNK_BYTES) {
        yield { data: Buffer.from(chunk), rows };
        chunk = '';
        rows = 0;
      }
    }
    if (batch.length < READ_BATCH) break;
    const last = batch[batch.length - 1];
    after = { at: last.created_at, id: last.id };
  }
  if (chunk) yield { data: Buffer.from(chunk), rows };
}

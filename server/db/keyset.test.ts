import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCursor, toPage, type Page } from '../contract/pagination.ts';
import { freshDatabase } from '../../test/databases.ts';
import { keysetPage, type KeysetOrder } from './keyset.ts';

interface Tables {
  items: { id: string; created_at: Date; kind: string };
}

// Three rows share one instant: only the id tells them apart, in either direction.
const TIE = new Date('2026-01-02T03:04:05.678Z');
const ROWS = [
  { id: 'i1', created_at: new Date('2026-01-01T00:00:00.000Z'), kind: 'a' },
  { id: 'i4', created_at: TIE, kind: 'a' },
  { id: 'i2', created_at: TIE, kind: 'b' },
  { id: 'i3', created_at: TIE, kind: 'a' },
  { id: 'i5', created_at: new Date('2026-01-03T00:00:00.000Z'), kind: 'a' },
];

let db: Kysely<Tables>;

beforeAll(async () => {
  db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: await freshDatabase('keyset_test') }) }) });
  await sql`create table items (id text primary key, created_at timestamptz not null, kind text not null)`.execute(db);
  await db.insertInto('items').values(ROWS).execute();
});

afterAll(() => db.destroy());

/** Every page of the list, each one read from the cursor its predecessor handed out. */
async function walk(order: KeysetOrder<Tables, 'items'>, limit: number, kind?: string): Promise<Page<string>[]> {
  const pages: Page<string>[] = [];
  let cursor: string | undefined;
  do {
    let query = db.selectFrom('items').selectAll();
    if (kind) query = query.where('kind', '=', kind);
    const rows = await keysetPage(query, order, decodeCursor(cursor), limit).execute();
    const page = toPage(
      rows,
      limit,
      (r) => ({ at: r.created_at, id: r.id }),
      (r) => r.id,
    );
    pages.push(page);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return pages;
}

const ids = (pages: Page<string>[]) => pages.map((p) => p.data);

describe('keyset pages', () => {
  it('go oldest first, ties broken by id, across a tie split between pages', async () => {
    expect(ids(await walk({ at: 'created_at', id: 'id', direction: 'asc' }, 2))).toEqual([['i1', 'i2'], ['i3', 'i4'], ['i5']]);
  });

  it('go newest first, ties broken by id the other way', async () => {
    expect(ids(await walk({ at: 'created_at', id: 'id', direction: 'desc' }, 2))).toEqual([['i5', 'i4'], ['i3', 'i2'], ['i1']]);
  });

  it('end on a last page that says so, full or not', async () => {
    const full = await walk({ at: 'items.created_at', id: 'items.id', direction: 'asc' }, 5);
    expect(full).toEqual([{ data: ['i1', 'i2', 'i3', 'i4', 'i5'], next_cursor: null, has_more: false }]);
    const filtered = await walk({ at: 'created_at', id: 'id', direction: 'asc' }, 2, 'a');
    expect(filtered.map((p) => [p.data, p.has_more, p.next_cursor === null])).toEqual([
      [['i1', 'i3'], true, false],
      [['i4', 'i5'], false, true],
    ]);
  });

  it('start after a cursor on an instant no row has', async () => {
    const rows = await keysetPage(
      db.selectFrom('items').select('id'),
      { at: 'created_at', id: 'id', direction: 'desc' },
      { at: new Date('2026-01-02T12:00:00.000Z'), id: '' },
      10,
    ).execute();
    expect(rows.map((r) => r.id)).toEqual(['i4', 'i3', 'i2', 'i1']);
  });
});

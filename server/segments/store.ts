import { sql, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { ShownContact } from '../contacts/json.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { SegmentRule } from './rules.ts';

/** The segments' store: the only code that writes `segments`, and the reads of the contacts a segment matches. */

export type SegmentRecord = Selectable<Database['segments']>;

const rulesJson = (rules: SegmentRule) => sql<SegmentRule>`${JSON.stringify(rules)}::jsonb`;

export const segmentStore = {
  byId(db: Db, accountId: string, id: string): Promise<SegmentRecord | undefined> {
    return db.selectFrom('segments').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  },

  /** The account's segments among `ids` (others' and unknown ids are left out). */
  some(db: Db, accountId: string, ids: readonly string[]): Promise<SegmentRecord[]> {
    if (!ids.length) return Promise.resolve([]);
    return db.selectFrom('segments').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
  },

  page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<SegmentRecord[]> {
    const query = db.selectFrom('segments').selectAll().where('account_id', '=', accountId);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  async count(db: Db, accountId: string): Promise<number> {
    const row = await db
      .selectFrom('segments')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  insert(db: Db, segment: Pick<SegmentRecord, 'id' | 'account_id' | 'name' | 'description' | 'rules'>): Promise<SegmentRecord> {
    return db
      .insertInto('segments')
      .values({ ...segment, rules: rulesJson(segment.rules), created_at: new Date(), updated_at: new Date() })
      .returningAll()
      .executeTakeFirstOrThrow();
  },

  update(
    db: Db,
    accountId: string,
    id: string,
    change: { name?: string; description?: string | null; rules?: SegmentRule },
  ): Promise<SegmentRecord | undefined> {
    return db
      .updateTable('segments')
      .set({
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.description !== undefined ? { description: change.description } : {}),
        ...(change.rules !== undefined ? { rules: rulesJson(change.rules) } : {}),
        updated_at: new Date(),
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  },

  async remove(db: Db, accountId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('segments').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};

/** Reads of the contacts a compiled condition (on the contact aliased `c`) matches. */
export const members = {
  async count(db: Db, accountId: string, condition: RawBuilder<SqlBool>): Promise<number> {
    const row = await db
      .selectFrom('contacts as c')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('c.account_id', '=', accountId)
      .where(condition)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** One page in `(created_at, id)` order. */
  page(db: Db, accountId: string, condition: RawBuilder<SqlBool>, after: Cursor | null, limit: number): Promise<ShownContact[]> {
    const query = db
      .selectFrom('contacts as c')
      .select([
        'c.id',
        'c.email',
        'c.first_name as firstName',
        'c.last_name as lastName',
        'c.attributes',
        'c.tags',
        'c.timezone',
        'c.status',
        'c.status_reason as statusReason',
        'c.status_changed_at as statusChangedAt',
        'c.created_at as createdAt',
        'c.updated_at as updatedAt',
      ])
      .where('c.account_id', '=', accountId)
      .where(condition);
    return keysetPage(query, { at: 'c.created_at', id: 'c.id', direction: 'asc' }, after, limit).execute();
  },
};

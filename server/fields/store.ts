import { sql, type Selectable } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';

/** The custom fields' store: the only code that writes `contact_fields`. */

/** A list for a jsonb column (pg would send a JS array as a PostgreSQL array). */
const jsonArray = (items: string[]) => sql<string[]>`${JSON.stringify(items)}::jsonb`;

export type FieldRecord = Selectable<Database['contact_fields']>;

export const fieldStore = {
  all(db: Db, accountId: string): Promise<FieldRecord[]> {
    return db.selectFrom('contact_fields').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();
  },

  byId(db: Db, accountId: string, id: string): Promise<FieldRecord | undefined> {
    return db.selectFrom('contact_fields').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  },

  async count(db: Db, accountId: string): Promise<number> {
    const row = await db
      .selectFrom('contact_fields')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  /** Inserts a field; answers undefined, having written nothing, when the account has one with that key. */
  insert(db: Db, field: Omit<FieldRecord, 'created_at' | 'updated_at'>): Promise<FieldRecord | undefined> {
    return db
      .insertInto('contact_fields')
      .values({ ...field, options: jsonArray(field.options), created_at: new Date(), updated_at: new Date() })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
  },

  update(db: Db, accountId: string, id: string, change: { label?: string; options?: string[] }): Promise<FieldRecord | undefined> {
    return db
      .updateTable('contact_fields')
      .set({
        ...(change.label !== undefined ? { label: change.label } : {}),
        ...(change.options !== undefined ? { options: jsonArray(change.options) } : {}),
        updated_at: new Date(),
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
  },

  async remove(db: Db, accountId: string, id: string): Promise<boolean> {
    const result = await db.deleteFrom('contact_fields').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return result.numDeletedRows > 0n;
  },
};

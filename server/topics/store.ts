import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';

/** Every statement that writes `topics` and `contact_topic_optouts`. */

export interface TopicListed {
  id: string;
  name: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'description', 'created_at', 'updated_at'] as const;

export async function topicExists(db: Db, accountId: string, id: string): Promise<boolean> {
  const row = await db.selectFrom('topics').select('id').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export const topics = {
  /** Null when the account has a topic of that name (case-insensitive) already. */
  async insert(db: Db, row: { account_id: string; name: string; description: string | null }): Promise<TopicListed | null> {
    const created = await db
      .insertInto('topics')
      .values({ ...row, id: sql<string>`sendline_id('top')` })
      .onConflict((oc) => oc.expression(sql`account_id, lower(name)`).doNothing())
      .returning(COLUMNS)
      .executeTakeFirst();
    return created ?? null;
  },

  async idByName(db: Db, accountId: string, name: string): Promise<string | null> {
    const row = await db
      .selectFrom('topics')
      .select('id')
      .where('account_id', '=', accountId)
      .where(sql<boolean>`lower(name) = lower(${name})`)
      .executeTakeFirst();
    return row?.id ?? null;
  },

  page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<TopicListed[]> {
    const query = db.selectFrom('topics').select(COLUMNS).where('account_id', '=', accountId);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  async byId(db: Db, accountId: string, id: string): Promise<TopicListed | null> {
    const row = await db.selectFrom('topics').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  },

  /** Null when the account has no such topic. Throws the unique violation of a taken name. */
  async update(db: Db, accountId: string, id: string, change: { name?: string; description?: string | null }): Promise<TopicListed | null> {
    const row = await db
      .updateTable('topics')
      .set({ ...change, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
    return row ?? null;
  },

  async remove(db: Db, accountId: string, id: string): Promise<boolean> {
    const row = await db.deleteFrom('topics').where('account_id', '=', accountId).where('id', '=', id).returning('id').executeTakeFirst();
    return row !== undefined;
  },
};

export const optouts = {
  /** Which of the contacts left the topic. */
  async among(db: Db, accountId: string, topicId: string, contactIds: readonly string[]): Promise<Set<string>> {
    if (!contactIds.length) return new Set();
    const rows = await db
      .selectFrom('contact_topic_optouts')
      .select('contact_id')
      .where('account_id', '=', accountId)
      .where('topic_id', '=', topicId)
      .where('contact_id', '=', sql<string>`any(${contactIds}::text[])`)
      .execute();
    return new Set(rows.map((r) => r.contact_id));
  },

  async ofContact(db: Db, accountId: string, contactId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('contact_topic_optouts')
      .select('topic_id')
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .orderBy('topic_id')
      .execute();
    return rows.map((r) => r.topic_id);
  },

  /** The contact leaves the topic; true when it had not left it before. */
  async add(db: Db, accountId: string, topicId: string, contactId: string): Promise<boolean> {
    const row = await db
      .insertInto('contact_topic_optouts')
      .values({ topic_id: topicId, contact_id: contactId, account_id: accountId })
      .onConflict((oc) => oc.columns(['account_id', 'topic_id', 'contact_id']).doNothing())
      .returning('topic_id')
      .executeTakeFirst();
    return row !== undefined;
  },

  /** Replaces the contact's opt-outs with `topicIds`; true when they changed. */
  async replace(db: Db, accountId: string, contactId: string, topicIds: readonly string[]): Promise<boolean> {
    const removed = await db
      .deleteFrom('contact_topic_optouts')
      .where('account_id', '=', accountId)
      .where('contact_id', '=', contactId)
      .where(sql<boolean>`not (topic_id = any(${topicIds}::text[]))`)
      .returning('topic_id')
      .execute();
    const { rows: added } = await sql<{ topic_id: string }>`
      insert into contact_topic_optouts (topic_id, contact_id, account_id)
      select t, ${contactId}, ${accountId} from unnest(${topicIds}::text[]) t order by t
      on conflict do nothing returning topic_id`.execute(db);
    return removed.length + added.length > 0;
  },
};

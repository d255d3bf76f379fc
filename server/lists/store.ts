import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Database, Db } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { ContactStatus } from '../contacts/rules.ts';
import type { MemberStatus } from './entities.ts';

/** Every statement that touches `lists` and `list_members`. */

export type ListRecord = Selectable<Database['lists']>;
export type MemberCounts = Record<MemberStatus, number>;

/** A contact of the account named by a request, with what list events need of it. */
export interface FoundContact {
  id: string;
  email: string;
  status: ContactStatus;
}

/** One row a bulk add wrote: a new member, or an existing one whose status it changed. */
export interface WrittenMember {
  contact_id: string;
  added: boolean;
  status: MemberStatus;
}

/** A confirmation to send, claimed under a lease. */
export interface DueConfirmation {
  list_id: string;
  contact_id: string;
  account_id: string;
  email: string;
  first_name: string | null;
  contact_status: ContactStatus;
  list_name: string;
  from_email: string | null;
  from_name: string | null;
}

export interface ListedMember {
  contact_id: string;
  email: string;
  status: MemberStatus;
  confirmed_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface Membership {
  list_id: string;
  name: string;
  status: MemberStatus;
  created_at: Date;
}

const emptyCounts = (): MemberCounts => ({ unconfirmed: 0, subscribed: 0, unsubscribed: 0 });

export const listStore = {
  async create(db: Db, row: Omit<ListRecord, 'created_at' | 'updated_at'>): Promise<ListRecord> {
    return db.insertInto('lists').values(row).returningAll().executeTakeFirstOrThrow();
  },

  async get(db: Db, accountId: string, id: string): Promise<ListRecord | null> {
    return (await db.selectFrom('lists').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst()) ?? null;
  },

  /** The account's lists among `ids` (others' and unknown ids are left out). */
  async some(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await db.selectFrom('lists').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  },

  /** A condition on contacts aliased `c`: on the list, in any status. */
  membersCondition(accountId: string, listId: string) {
    return sql<SqlBool>`exists (select 1 from list_members m where m.account_id = ${accountId} and m.list_id = ${listId} and m.contact_id = c.id)`;
  },

  async byPublicId(db: Db, publicId: string): Promise<ListRecord | null> {
    return (await db.selectFrom('lists').selectAll().where('public_id', '=', publicId).executeTakeFirst()) ?? null;
  },

  page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<ListRecord[]> {
    const query = db.selectFrom('lists').selectAll().where('account_id', '=', accountId);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  async update(
    db: Db,
    accountId: string,
    id: string,
    changes: Partial<Pick<ListRecord, 'name' | 'description' | 'double_opt_in' | 'from_email' | 'from_name'>>,
  ) {
    return (
      (await db
        .updateTable('lists')
        .set({ ...changes, updated_at: sql<Date>`now()` })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()) ?? null
    );
  },

  /**
   * Deletes the list, then its memberships, in the caller's transaction. Two statements: the
   * second's snapshot, taken once writers holding the list (`lockKey`) have committed, sees
   * every member they added, so none outlives the list. Answers how many members went, or null
   * when the account has no such list.
   */
  async delete(tx: Db, accountId: string, id: string): Promise<{ members: number } | null> {
    const deleted = await tx.deleteFrom('lists').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    if (deleted.numDeletedRows === 0n) return null;
    const members = await tx.deleteFrom('list_members').where('account_id', '=', accountId).where('list_id', '=', id).executeTakeFirst();
    return { members: Number(members.numDeletedRows) };
  },

  /** Holds the list until the caller's transaction ends, so that it is not deleted under new members; false when it is gone. */
  async lockKey(tx: Db, accountId: string, listId: string): Promise<boolean> {
    return (
      (await tx.selectFrom('lists').select('id').where('account_id', '=', accountId).where('id', '=', listId).forKeyShare().executeTakeFirst()) !== undefined
    );
  },

  /** Members per status of each list, in one grouped read of the (list, status) index. */
  async counts(db: Db, accountId: string, listIds: readonly string[]): Promise<Map<string, MemberCounts>> {
    const counts = new Map(listIds.map((id) => [id, emptyCounts()]));
    if (!listIds.length) return counts;
    const rows = await db
      .selectFrom('list_members')
      .select(['list_id', 'status', (eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
      .where('account_id', '=', accountId)
      .where('list_id', 'in', listIds)
      .groupBy(['list_id', 'status'])
      .execute();
    for (const row of rows) counts.get(row.list_id)![row.status] = row.n;
    return counts;
  },

  /** The account's contacts among `ids` and `emails` (case-insensitive), and what names none. */
  async findContacts(db: Db, accountId: string, ids: readonly string[], emails: readonly string[]) {
    const { rows } = await sql<FoundContact & { by: 'id' | 'email'; key: string }>`
      select c.id, c.email, c.status, 'id' as by, c.id as key
      from contacts c where c.account_id = ${accountId} and c.id = any(${ids}::text[])
      union all
      select c.id, c.email, c.status, 'email' as by, e.key
      from unnest(${emails}::text[]) as e(key)
      join contacts c on c.account_id = ${accountId} and lower(c.email) = lower(e.key)`.execute(db);
    const foundIds = new Set(rows.filter((r) => r.by === 'id').map((r) => r.key));
    const foundEmails = new Set(rows.filter((r) => r.by === 'email').map((r) => r.key));
    const contacts = new Map(rows.map((r) => [r.id, { id: r.id, email: r.email, status: r.status }]));
    return {
      contacts: [...contacts.values()],
      missingIds: [...new Set(ids.filter((id) => !foundIds.has(id)))],
      missingEmails: [...new Set(emails.filter((email) => !foundEmails.has(email)))],
    };
  },

  /**
   * Adds the contacts to the list as `status`, in one statement; with `overwrite`, existing
   * members of another status take it too. A member made `unconfirmed` is due a confirmation
   * now. Rows go in contact order, so concurrent adds lock members in one order. `overwrite`
   * is written as a literal: Citus loses the type of a parameter in ON CONFLICT's WHERE.
   */
  async addMembers(db: Db, target: { accountId: string; listId: string }, contactIds: readonly string[], status: MemberStatus, overwrite: boolean) {
    const { rows } = await sql<WrittenMember>`
      insert into list_members as m (list_id, contact_id, account_id, status, confirmation_due_at, confirmed_at)
      select ${target.listId}::text, i.id, ${target.accountId}::text, ${status}::text,
             case when ${status}::text = 'unconfirmed' then now() end, null
      from unnest(${contactIds}::text[]) as i(id)
      order by i.id
      on conflict (account_id, list_id, contact_id) do update set
        status = excluded.status, confirmation_due_at = excluded.confirmation_due_at, updated_at = excluded.updated_at
      where ${sql.lit(overwrite)} and m.status <> excluded.status
      returning m.contact_id, old.contact_id is null as added, m.status`.execute(db);
    return rows;
  },

  async removeMembers(db: Db, accountId: string, listId: string, contactIds: readonly string[]): Promise<number> {
    if (!contactIds.length) return 0;
    const result = await db
      .deleteFrom('list_members')
      .where('account_id', '=', accountId)
      .where('list_id', '=', listId)
      .where('contact_id', 'in', contactIds)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** One member, locked: what a public subscription decides on. */
  async lockMember(db: Db, accountId: string, listId: string, contactId: string) {
    return (
      (await db
        .selectFrom('list_members')
        .select(['status', 'confirmation_sent_at', 'confirmation_due_at', 'confirmations_requested', 'confirmations_requested_since'])
        .where('account_id', '=', accountId)
        .where('list_id', '=', listId)
        .where('contact_id', '=', contactId)
        .forUpdate()
        .executeTakeFirst()) ?? null
    );
  },

  /** An existing member takes `status`; an unconfirmed one is due a confirmation now. */
  async setMemberStatus(db: Db, accountId: string, listId: string, contactId: string, status: MemberStatus): Promise<void> {
    await db
      .updateTable('list_members')
      .set({ status, confirmation_due_at: status === 'unconfirmed' ? sql<Date>`now()` : null, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('list_id', '=', listId)
      .where('contact_id', '=', contactId)
      .execute();
  },

  /**
   * A public sign-up asked the member for a confirmation: it expires unconfirmed after
   * `expiresInSeconds`, and counts among the confirmations of the day (a count older than a day
   * starts again).
   */
  async signupRequested(db: Db, accountId: string, listId: string, contactId: string, expiresInSeconds: number): Promise<void> {
    // The clock as a row: Citus refuses now(), and time arithmetic, inside a CASE of a statement that changes rows.
    await sql`
      with clock as (select now() as now, now() - interval '1 day' as day_ago, now() + make_interval(secs => ${expiresInSeconds}) as expires_at)
      update list_members m set
        signup_expires_at = clock.expires_at,
        confirmations_requested = case when m.confirmations_requested_since > clock.day_ago then m.confirmations_requested + 1 else 1 end,
        confirmations_requested_since = case when m.confirmations_requested_since > clock.day_ago then m.confirmations_requested_since else clock.now end
      from clock
      where m.account_id = ${accountId} and m.list_id = ${listId} and m.contact_id = ${contactId}`.execute(db);
  },

  /**
   * Removes the public sign-ups whose time to confirm has passed; answers their contacts, for the
   * contacts' own store to remove those that only such a sign-up made.
   */
  async expireSignups(db: Db): Promise<string[]> {
    const rows = await db
      .deleteFrom('list_members')
      .where('status', '=', 'unconfirmed')
      .where('signup_expires_at', '<', sql<Date>`now()`)
      .returning('contact_id')
      .execute();
    return [...new Set(rows.map((r) => r.contact_id))];
  },

  /** Follows a double opt-in link: an unconfirmed member becomes subscribed. */
  async confirm(db: Db, accountId: string, listId: string, contactId: string): Promise<boolean> {
    const result = await db
      .updateTable('list_members')
      .set({ status: 'subscribed', confirmed_at: sql<Date>`now()`, confirmation_due_at: null, signup_expires_at: null, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('list_id', '=', listId)
      .where('contact_id', '=', contactId)
      .where('status', '=', 'unconfirmed')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  },

  /**
   * A member with its list and contact, for the confirmation pages. A link names no account: the
   * list's is found first (under Citus, on every shard), then the member on its account's shard.
   */
  async describeMember(db: Db, listId: string, contactId: string) {
    const list = await db.selectFrom('lists').select(['account_id', 'name']).where('id', '=', listId).executeTakeFirst();
    if (!list) return null;
    const member = await db
      .selectFrom('list_members as m')
      .innerJoin('contacts as c', (join) => join.onRef('c.account_id', '=', 'm.account_id').onRef('c.id', '=', 'm.contact_id'))
      .select(['m.status', 'c.email', 'c.status as contact_status'])
      .where('m.account_id', '=', list.account_id)
      .where('m.list_id', '=', listId)
      .where('m.contact_id', '=', contactId)
      .executeTakeFirst();
    return member ? { ...member, account_id: list.account_id, list_name: list.name } : null;
  },

  /** One page in contact order (ids begin with their time), on the primary key or the status index. */
  membersPage(
    db: Db,
    accountId: string,
    listId: string,
    status: MemberStatus | undefined,
    afterContact: string | null,
    limit: number,
  ): Promise<ListedMember[]> {
    let query = db
      .selectFrom('list_members as m')
      .innerJoin('contacts as c', (join) => join.onRef('c.account_id', '=', 'm.account_id').onRef('c.id', '=', 'm.contact_id'))
      .select(['m.contact_id', 'c.email', 'm.status', 'm.confirmed_at', 'm.created_at', 'm.updated_at'])
      .where('m.account_id', '=', accountId)
      .where('m.list_id', '=', listId);
    if (status) query = query.where('m.status', '=', status);
    if (afterContact !== null) query = query.where('m.contact_id', '>', afterContact);
    return query
      .orderBy('m.contact_id')
      .limit(limit + 1)
      .execute();
  },

  memberships(db: Db, accountId: string, contactId: string, after: Cursor | null, limit: number): Promise<Membership[]> {
    const query = db
      .selectFrom('list_members as m')
      .innerJoin('lists as l', (join) => join.onRef('l.account_id', '=', 'm.account_id').onRef('l.id', '=', 'm.list_id'))
      .select(['m.list_id', 'l.name', 'm.status', 'm.created_at'])
      .where('m.contact_id', '=', contactId)
      .where('m.account_id', '=', accountId);
    return keysetPage(query, { at: 'm.created_at', id: 'm.list_id', direction: 'asc' }, after, limit).execute();
  },

  /** The account's lists among `ids`: what a campaign or an import may name. */
  async existing(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await db.selectFrom('lists').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  },

  /**
   * Claims up to `limit` due confirmations under a lease of `leaseSeconds` (a sender that dies
   * leaves them to the next), skipping those another sender holds.
   */
  async claimConfirmations(db: Db, limit: number, leaseSeconds: number): Promise<DueConfirmation[]> {
    // One account at a time (under Citus, one shard's), the accounts of the oldest due in turn.
    const due = sql<SqlBool>`confirmation_due_at <= now() and status = 'unconfirmed'`;
    const { rows: oldest } = await sql<{ account_id: string }>`
      select account_id from list_members where ${due} order by confirmation_due_at limit ${limit}`.execute(db);
    const rows: DueConfirmation[] = [];
    for (const accountId of new Set(oldest.map((row) => row.account_id))) {
      if (rows.length >= limit) break;
      const { rows: claimed } = await sql<DueConfirmation>`
        with due as (
          select list_id, contact_id from list_members
          where account_id = ${accountId} and ${due}
          order by confirmation_due_at
          limit ${limit - rows.length}
          for update skip locked
        ), claimed as (
          update list_members m set confirmation_due_at = now() + make_interval(secs => ${leaseSeconds})
          from due where m.account_id = ${accountId} and m.list_id = due.list_id and m.contact_id = due.contact_id
          returning m.list_id, m.contact_id, m.account_id
        )
        select k.list_id, k.contact_id, k.account_id, c.email, c.first_name, c.status as contact_status, l.name as list_name, l.from_email, l.from_name
        from claimed k join contacts c on c.account_id = k.account_id and c.id = k.contact_id join lists l on l.account_id = k.account_id and l.id = k.list_id`.execute(
        db,
      );
      rows.push(...claimed);
    }
    return rows;
  },

  /** The confirmation went out (or cannot go out): nothing more is due. */
  async confirmationSent(db: Db, accountId: string, listId: string, contactId: string): Promise<void> {
    await db
      .updateTable('list_members')
      .set({ confirmation_due_at: null, confirmation_sent_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('list_id', '=', listId)
      .where('contact_id', '=', contactId)
      .execute();
  },

  /** The relay put it off: due again after `seconds`. */
  async confirmationDeferred(db: Db, accountId: string, listId: string, contactId: string, seconds: number): Promise<void> {
    await db
      .updateTable('list_members')
      .set({ confirmation_due_at: sql<Date>`now() + make_interval(secs => ${seconds})` })
      .where('account_id', '=', accountId)
      .where('list_id', '=', listId)
      .where('contact_id', '=', contactId)
      .where('status', '=', 'unconfirmed')
      .execute();
  },
};

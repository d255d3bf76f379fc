import { sql, type Insertable, type RawBuilder, type SqlBool } from 'kysely';
import { Transactions } from '../db/transactions.ts';
import { prepared, statement, type Database, type Db } from '../db/kysely.ts';
import { announce, announcement, appendedBy, appending, appendingEach, type Appended } from '../events/outbox.ts';
import type { EventData, PendingEvent } from '../events/types.ts';
import { pendingSignup } from './pending-signups.ts';
import { signalling } from '../signals/outbox.ts';
import { countingChanges, type StatusChange } from './status-counts.ts';

/**
 * The contacts' own statements outside the ORM's unit of work: creating one, tags across many,
 * deleting. Other features' writes of contacts are in suppression.ts, import-batch.ts and
 * pending-signups.ts.
 */

// ---- Creating one contact through the API.

/** A contact as `insertContact` writes it: every column but the ones only imports and tracking keep. */
export type NewContact = Omit<Insertable<Database['contacts']>, 'last_import_id' | 'soft_bounces'>;

/**
 * Writes a new contact and its `contact.created` event in one statement (one round trip, one
 * implicit transaction); answers false, having written nothing, when the account already has
 * a contact with that address.
 */
export async function insertContact(
  on: Transactions | Db,
  contact: NewContact,
  event: PendingEvent & { type: 'contact.created' },
  signals: boolean,
): Promise<boolean> {
  const inserted = statement
    .insertInto('contacts')
    .values(contact)
    .onConflict((oc) => oc.doNothing())
    .returning(['id', 'tags', 'account_id', 'status']);
  const insert = appending(contact.account_id, [event], sql<boolean>`exists (select 1 from inserted)`);
  // Journeys start from the contacts the account makes, not from a public sign-up still unconfirmed.
  const signalled = signals
    ? sql`, created_signal as (${signalling(contact.account_id, 'contact_created', sql`select id as contact_id, '' as key from inserted`)}),
        tagged_signal as (${signalling(contact.account_id, 'tag_added', sql`select i.id as contact_id, t as key from inserted i, unnest(i.tags) t`)})`
    : sql``;
  const create = sql<{
    created: boolean;
    appended: Appended | null;
  }>`with inserted as (${inserted}), appended as (${insert}),
    counted as (${countingChanges(sql<StatusChange>`select account_id, null as before, status as after from inserted`)})${signalled}
    select exists (select 1 from inserted) as created, ${appendedBy(contact.account_id)} as appended`;
  const [row] = on instanceof Transactions ? await on.prepared(create) : await prepared(on, create);
  const announcing = announcement(contact.account_id, row.appended);
  if (announcing) await (on instanceof Transactions ? on.prepared(announcing) : prepared(on, announcing));
  return row.created;
}

/**
 * A contact the account creates over one an unconfirmed sign-up made: the sign-up's row, locked,
 * takes every value of `contact` but its id and creation time. Null when there is no such row.
 */
export async function takeOverPendingSignup(db: Db, contact: NewContact): Promise<{ id: string; created_at: Date } | null> {
  const { rows } = await sql<{ id: string; created_at: Date }>`
    with taken as (
      update contacts c set email = ${contact.email}, first_name = ${contact.first_name}, last_name = ${contact.last_name},
        timezone = ${contact.timezone ?? null}, attributes = ${JSON.stringify(contact.attributes)}::jsonb, tags = ${contact.tags}::text[], status = ${contact.status},
        status_reason = ${contact.status_reason}, status_changed_at = ${contact.status_changed_at}, updated_at = ${contact.updated_at}
      where c.account_id = ${contact.account_id} and lower(c.email) = lower(${contact.email}) and ${pendingSignup('c')}
      returning c.id, c.created_at, c.account_id, old.status as before, c.status as after
    ), counted as (${countingChanges(sql<StatusChange>`select account_id, before, after from taken`)})
    select id, created_at from taken`.execute(db);
  return rows[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// Tags across contacts: renaming, removing, and bulk tagging (the tags resource).
// ---------------------------------------------------------------------------------------------

/** Tags with how many of the account's contacts carry each, by name, after `after`. */
export function tagCounts(db: Db, accountId: string, after: string | null, limit: number): Promise<{ name: string; contacts: number }[]> {
  return sql<{ name: string; contacts: number }>`
    select t as name, count(*)::int as contacts from contacts c, unnest(c.tags) t
    where c.account_id = ${accountId} ${after === null ? sql`` : sql`and t collate "C" > ${after}`}
    group by t order by t collate "C" limit ${limit}`
    .execute(db)
    .then((r) => r.rows);
}

/** How many of the account's contacts carry the tag. */
export async function tagCount(db: Db, accountId: string, tag: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from contacts where account_id = ${accountId} and tags @> array[${tag}]::text[]`.execute(
    db,
  );
  return rows[0].n;
}

/** A timestamp as `toISOString` writes it (the columns keep milliseconds). */
const isoTime = (column: string) => sql`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The `contact.updated` events of tags changed on many contacts, one per row of the CTE
 * `changed` (which returns the contacts' columns), written in the same statement: as
 * `contactJson` shows each contact, with `changed: ["tags"]`.
 */
const tagsChangedEvents = (accountId: string) =>
  appendingEach(
    accountId,
    'contact.updated',
    sql<{ data: EventData<'contact.updated'> }>`select json_build_object(
      'contact', json_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name,
        'attributes', u.attributes, 'tags', u.tags, 'timezone', u.timezone, 'status', u.status, 'status_reason', u.status_reason,
        'status_changed_at', ${isoTime('u.status_changed_at')}, 'created_at', ${isoTime('u.created_at')}, 'updated_at', ${isoTime('u.updated_at')}),
      'changed', json_build_array('tags')) as data
    from changed u order by u.id`,
  );

const attributesChangedEvents = (accountId: string) =>
  appendingEach(
    accountId,
    'contact.updated',
    sql<{ data: EventData<'contact.updated'> }>`select json_build_object(
      'contact', json_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name,
        'attributes', u.attributes, 'tags', u.tags, 'timezone', u.timezone, 'status', u.status, 'status_reason', u.status_reason,
        'status_changed_at', ${isoTime('u.status_changed_at')}, 'created_at', ${isoTime('u.created_at')}, 'updated_at', ${isoTime('u.updated_at')}),
      'changed', json_build_array('attributes')) as data
    from changed u order by u.id`,
  );

/** `tags` with `add` appended and `remove` left out, each once, in their first order. */
const retagged = (add: readonly string[], remove: readonly string[]) =>
  sql<string[]>`array(select t from unnest(c.tags || ${add}::text[]) with ordinality u(t, i) where t <> all(${remove}::text[]) group by t order by min(i))`;

/**
 * Renames a tag on every contact of the account that carries it; one that also carries the new
 * name keeps it once, where it was first. Each contact changed gets its `contact.updated`.
 * Answers how many contacts changed.
 */
export async function renameTag(db: Db, accountId: string, from: string, to: string): Promise<number> {
  const { rows } = await sql<{ n: number; appended: Appended }>`
    with changed as (
      update contacts c set tags = array(select t from unnest(array_replace(c.tags, ${from}, ${to})) with ordinality u(t, i) group by t order by min(i)),
        updated_at = now()
      where c.account_id = ${accountId} and c.tags @> array[${from}]::text[]
      returning c.*
    ), appended as (${tagsChangedEvents(accountId)})
    select count(*)::int as n, ${appendedBy(accountId)} as appended from changed`.execute(db);
  await announce(db, accountId, rows[0].appended);
  return rows[0].n;
}

/** Removes a tag from every contact of the account, each with its `contact.updated`; answers how many carried it. */
export async function removeTag(db: Db, accountId: string, tag: string): Promise<number> {
  const { rows } = await sql<{ n: number; appended: Appended }>`
    with changed as (
      update contacts c set tags = array_remove(c.tags, ${tag}), updated_at = now()
      where c.account_id = ${accountId} and c.tags @> array[${tag}]::text[]
      returning c.*
    ), appended as (${tagsChangedEvents(accountId)})
    select count(*)::int as n, ${appendedBy(accountId)} as appended from changed`.execute(db);
  await announce(db, accountId, rows[0].appended);
  return rows[0].n;
}

/**
 * Adds and removes tags on the account's contacts that `selector` (a condition on the contact
 * aliased `c`) matches, locking them in id order; each contact changed gets its
 * `contact.updated`. A contact that would carry more than `maxTags` is left as it is. Answers
 * how many matched and how many changed.
 */
export async function retagContacts(
  db: Db,
  accountId: string,
  selector: RawBuilder<SqlBool>,
  change: { add: readonly string[]; remove: readonly string[]; maxTags: number },
): Promise<{ matched: number; changed: number }> {
  const next = retagged(change.add, change.remove);
  const { rows } = await sql<{ matched: number; changed: number; appended: Appended }>`
    with matched as (
      select c.id from contacts c where c.account_id = ${accountId} and ${selector} order by c.id for update
    ), changed as (
      update contacts c set tags = ${next}, updated_at = now()
      from matched m
      where c.account_id = ${accountId} and c.id = m.id and c.tags is distinct from ${next} and cardinality(${next}) <= ${change.maxTags}
      returning c.*, old.tags as previous_tags
    ), appended as (${tagsChangedEvents(accountId)}),
    signalled as (${signalling(accountId, 'tag_added', sql`select u.id as contact_id, t as key from changed u, unnest(u.tags) t where t <> all(u.previous_tags)`)})
    select (select count(*)::int from matched) as matched, (select count(*)::int from changed) as changed, ${appendedBy(accountId)} as appended`.execute(db);
  await announce(db, accountId, rows[0].appended);
  return { matched: rows[0].matched, changed: rows[0].changed };
}

/**
 * Sets (a null removes) attributes of contacts, each changed one with its `contact.updated`, in
 * one statement; the caller checked them against the custom fields.
 */
export async function setAttributes(db: Db, accountId: string, contactIds: readonly string[], attributes: Record<string, unknown>): Promise<void> {
  const set = Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== null));
  const removed = Object.keys(attributes).filter((k) => attributes[k] === null);
  const { rows } = await sql<{ appended: Appended }>`
    with changed as (
      update contacts c set attributes = (c.attributes - ${removed}::text[]) || ${JSON.stringify(set)}::jsonb, updated_at = now()
      where c.account_id = ${accountId} and c.id = any(${contactIds}::text[]) and c.attributes is distinct from ((c.attributes - ${removed}::text[]) || ${JSON.stringify(set)}::jsonb)
      returning c.*
    ), appended as (${attributesChangedEvents(accountId)})
    select ${appendedBy(accountId)} as appended`.execute(db);
  await announce(db, accountId, rows[0].appended);
}

/** The account's contacts by id, as journeys read them. */
export async function contactsByIds(db: Db, accountId: string, ids: readonly string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('contacts')
    .select(['id', 'email', 'first_name', 'last_name', 'status', 'tags', 'attributes', 'timezone'])
    .where('account_id', '=', accountId)
    .where('id', '=', sql<string>`any(${ids}::text[])`)
    .execute();
}

/** Erasure (GDPR): deletes the contact (its topic opt-outs go with it); answers its address, or null when the account has no such contact. */
export async function deleteContact(db: Db, accountId: string, contactId: string): Promise<string | null> {
  const { rows } = await sql<{ email: string }>`
    with deleted as (delete from contacts where account_id = ${accountId} and id = ${contactId} returning account_id, email, status),
      counted as (${countingChanges(sql<StatusChange>`select account_id, status as before, null as after from deleted`)})
    select email from deleted`.execute(db);
  return rows[0]?.email ?? null;
}

/**
 * Deletes the account's contacts among `contactIds` as `DELETE /contacts/{id}` deletes one, each
 * with its `contact.deleted`, in one statement that locks them in id order. Answers those deleted.
 */
export async function deleteContacts(db: Db, accountId: string, contactIds: readonly string[]): Promise<string[]> {
  const { rows } = await sql<{ ids: string[]; appended: Appended }>`
    with locked as (
      select id from contacts where account_id = ${accountId} and id = any(${contactIds}::text[]) order by id for update
    ), deleted as (
      delete from contacts c using locked l where c.account_id = ${accountId} and c.id = l.id returning c.id, c.account_id, c.status
    ), counted as (${countingChanges(sql<StatusChange>`select account_id, status as before, null as after from deleted`)}), appended as (${appendingEach(accountId, 'contact.deleted', sql<{ data: EventData<'contact.deleted'> }>`select json_build_object('contact_id', d.id) as data from deleted d order by d.id`)})
    select array(select id from deleted) as ids, ${appendedBy(accountId)} as appended`.execute(db);
  await announce(db, accountId, rows[0].appended);
  return rows[0].ids;
}

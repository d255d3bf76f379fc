import { sql, type Insertable, type RawBuilder, type SqlBool } from 'kysely';
import type { ClientBase, Pool, PoolClient } from 'pg';
import { copyBytes } from '../db/copy.ts';
import { prepared, sqlOnClient, statement, type Database, type Db } from '../db/kysely.ts';
import { appending, appendingEach } from '../events/outbox.ts';
import { PER_ROW_LOOKUPS } from '../db/pool.ts';
import type { components } from '../../generated/openapi.d.ts';
import type { EventData, PendingEvent } from '../events/outbox.ts';
import { PENDING_SIGNUP_REASON } from './rules.ts';

/** Every statement that writes `contacts` outside the ORM's unit of work: suppression, soft bounces, imports' batches. */

// ---- Creating one contact through the API.

/** A contact as `insertContact` writes it: every column but the ones only imports and tracking keep. */
export type NewContact = Omit<Insertable<Database['contacts']>, 'last_import_id' | 'soft_bounces'>;

/**
 * Writes a new contact and its `contact.created` event in one statement (one round trip, one
 * implicit transaction); answers false, having written nothing, when the account already has
 * a contact with that address.
 */
export async function insertContact(pool: Pool | PoolClient, contact: NewContact, event: PendingEvent & { type: 'contact.created' }): Promise<boolean> {
  const inserted = statement
    .insertInto('contacts')
    .values(contact)
    .onConflict((oc) => oc.doNothing())
    .returning('id');
  const { insert } = appending(contact.account_id, [event], sql<boolean>`exists (select 1 from inserted)`);
  const [row] = await prepared(
    pool,
    sql<{ created: boolean }>`with inserted as (${inserted}), appended as (${insert}) select exists (select 1 from inserted) as created`,
  );
  return row.created;
}

/** SQL: the contact row `alias` is one an unconfirmed double opt-in sign-up made (`PENDING_SIGNUP_REASON`). */
const pendingSignup = (alias: 'c' | 'old') =>
  sql<SqlBool>`(${sql.raw(alias)}.status = 'unsubscribed' and ${sql.raw(alias)}.status_reason = ${PENDING_SIGNUP_REASON})`;

/**
 * A contact the account creates over one an unconfirmed sign-up made: the sign-up's row, locked,
 * takes every value of `contact` but its id and creation time. Null when there is no such row.
 */
export async function takeOverPendingSignup(db: Db, contact: NewContact): Promise<{ id: string; created_at: Date } | null> {
  const { rows } = await sql<{ id: string; created_at: Date }>`
    update contacts c set email = ${contact.email}, first_name = ${contact.first_name}, last_name = ${contact.last_name},
      attributes = ${JSON.stringify(contact.attributes)}::jsonb, tags = ${contact.tags}::text[], status = ${contact.status},
      status_reason = ${contact.status_reason}, status_changed_at = ${contact.status_changed_at}, updated_at = ${contact.updated_at}
    where c.account_id = ${contact.account_id} and lower(c.email) = lower(${contact.email}) and ${pendingSignup('c')}
    returning c.id, c.created_at`.execute(db);
  return rows[0] ?? null;
}

/**
 * Deletes those of `contactIds` that an unconfirmed sign-up made and that have nothing else: no
 * list membership, campaign message, topic opt-out, tag or attribute. Answers those deleted.
 */
export async function deletePendingSignups(db: Db, contactIds: readonly string[]): Promise<{ id: string; account_id: string }[]> {
  if (!contactIds.length) return [];
  const { rows } = await sql<{ id: string; account_id: string }>`
    delete from contacts c
    where c.id = any(${contactIds}::text[]) and ${pendingSignup('c')} and c.tags = '{}' and c.attributes = '{}'::jsonb
      and not exists (select 1 from list_members m where m.contact_id = c.id)
      and not exists (select 1 from messages cm where cm.contact_id = c.id)
      and not exists (select 1 from contact_topic_optouts o where o.contact_id = c.id)
    returning c.id, c.account_id`.execute(db);
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Bulk writes: an import's batches.
// ---------------------------------------------------------------------------------------------

/**
 * The columns of an import batch's COPY text, in order: one line per address, `tags` as an array
 * literal, `attributes` as JSON text, `status` empty (`\N`) when the row gave none.
 */
export const IMPORT_STAGING_COLUMNS = 'row, id, email, first_name, last_name, tags, status, attributes';

/** Set first in the batch's transaction, in one round trip, before the COPY. */
const PREPARE_STAGING = sql.raw(`${PER_ROW_LOOKUPS}; create temp table if not exists import_staging (
  row integer, id text, email text, first_name text, last_name text, tags text[], status text, attributes jsonb
) on commit delete rows`);

/** One row per address, the last one: rows that only PostgreSQL's lower() makes equal are merged by this. */
const DISTINCT_STAGED = sql`select distinct on (lower(email)) * from import_staging order by lower(email), row desc`;

/**
 * What row `m` changes in existing contact `c`: values it leaves empty are kept, tags and
 * attributes add up, and an import never resubscribes (a `subscribed` row keeps the contact's
 * status), except a contact an unconfirmed sign-up made, which takes the row's status as a new
 * contact would. `m.status` reads an empty status as `subscribed`.
 */
const merge = (m: 'excluded' | 'm', importId: string) => {
  const row = sql.raw(m);
  return sql`
    first_name = coalesce(${row}.first_name, c.first_name),
    last_name = coalesce(${row}.last_name, c.last_name),
    attributes = c.attributes || ${row}.attributes,
    tags = array(select distinct t from unnest(c.tags || ${row}.tags) t order by t),
    status = case when ${pendingSignup('c')} or ${row}.status <> 'subscribed' then ${row}.status else c.status end,
    status_reason = case when ${pendingSignup('c')} then case when ${row}.status <> 'subscribed' then 'import' end
      when ${row}.status = 'subscribed' or ${row}.status = c.status then c.status_reason else 'import' end,
    status_changed_at = case when ${pendingSignup('c')} then case when ${row}.status <> 'subscribed' then now() end
      when ${row}.status = 'subscribed' or ${row}.status = c.status then c.status_changed_at else now() end,
    last_import_id = ${importId},
    updated_at = now()`;
};

type ImportMode = components['schemas']['ImportMode'];

/** Contacts a batch created, and updated (rows this import wrote before are neither). */
export interface Written {
  created: number;
  updated: number;
}

/**
 * `upsert` and `create_only` in one statement: a new address is inserted; an existing one is
 * merged (`create_only`: only when it was written earlier by this same import, i.e. a repeat
 * in the file). A contact an unconfirmed sign-up made counts as a new address in both. Rows go in
 * address order, so concurrent imports lock contacts in one order.
 */
const insertOrMerge = (accountId: string, importId: string, mode: ImportMode): RawBuilder<Written> => sql<Written>`
  with written as (
    insert into contacts as c (id, account_id, email, first_name, last_name, attributes, tags, status, status_reason, status_changed_at, last_import_id)
    select s.id, ${accountId}, s.email, s.first_name, s.last_name, s.attributes, s.tags, coalesce(s.status, 'subscribed'),
           case when s.status in ('unsubscribed', 'bounced', 'complained') then 'import' end,
           case when s.status in ('unsubscribed', 'bounced', 'complained') then now() end, ${importId}
    from (${DISTINCT_STAGED}) s
    on conflict (account_id, lower(email) text_pattern_ops) do update set ${merge('excluded', importId)}
    where ${mode} = 'upsert' or c.last_import_id = ${importId} or ${pendingSignup('c')}
    returning old.id is null or ${pendingSignup('old')} as created, old.last_import_id is not distinct from ${importId} as repeat
  )
  select count(*) filter (where created)::int as created, count(*) filter (where not created and not repeat)::int as updated from written`;

/** `update_only`: rows whose address is not a contact yet (or only an unconfirmed sign-up's) are skipped. */
const mergeOnly = (accountId: string, importId: string): RawBuilder<Written> => sql<Written>`
  with written as (
    update contacts c set ${merge('m', importId)}
    from (select row, email, first_name, last_name, attributes, tags, coalesce(status, 'subscribed') as status from (${DISTINCT_STAGED}) d) m
    where c.account_id = ${accountId} and lower(c.email) = lower(m.email) and not ${pendingSignup('c')}
    returning old.last_import_id is not distinct from ${importId} as repeat
  )
  select 0 as created, count(*) filter (where not repeat)::int as updated from written`;

/**
 * Writes an import batch's rows (COPY text in `IMPORT_STAGING_COLUMNS`, one line per address)
 * into the account's contacts, in the caller's transaction on `client`: COPY into a session
 * staging table, then one set-based statement. A row for an address this import wrote before
 * is merged into it and counts as neither created nor updated. COPY earns its place here: a
 * batch is held as this text, outside the import thread's heap, and PostgreSQL reads it without
 * parsing array literals of parameters. Needs PostgreSQL 18 (`RETURNING old`).
 */
export async function writeImportedContacts(
  client: ClientBase,
  target: { accountId: string; importId: string; mode: ImportMode },
  copyText: Buffer,
): Promise<Written> {
  const db = sqlOnClient(client);
  // One round trip before the COPY: the import's parser shares the thread, and each reply waits for it.
  await PREPARE_STAGING.execute(db);
  await copyBytes(client, 'import_staging', IMPORT_STAGING_COLUMNS, copyText);
  const statement =
    target.mode === 'update_only' ? mergeOnly(target.accountId, target.importId) : insertOrMerge(target.accountId, target.importId, target.mode);
  const {
    rows: [written],
  } = await statement.execute(db);
  return written;
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
        'attributes', u.attributes, 'tags', u.tags, 'status', u.status, 'status_reason', u.status_reason,
        'status_changed_at', ${isoTime('u.status_changed_at')}, 'created_at', ${isoTime('u.created_at')}, 'updated_at', ${isoTime('u.updated_at')}),
      'changed', json_build_array('tags')) as data
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
  const { rows } = await sql<{ n: number }>`
    with changed as (
      update contacts c set tags = array(select t from unnest(array_replace(c.tags, ${from}, ${to})) with ordinality u(t, i) group by t order by min(i)),
        updated_at = now()
      where c.account_id = ${accountId} and c.tags @> array[${from}]::text[]
      returning c.*
    ), appended as (${tagsChangedEvents(accountId)})
    select count(*)::int as n from changed`.execute(db);
  return rows[0].n;
}

/** Removes a tag from every contact of the account, each with its `contact.updated`; answers how many carried it. */
export async function removeTag(db: Db, accountId: string, tag: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with changed as (
      update contacts c set tags = array_remove(c.tags, ${tag}), updated_at = now()
      where c.account_id = ${accountId} and c.tags @> array[${tag}]::text[]
      returning c.*
    ), appended as (${tagsChangedEvents(accountId)})
    select count(*)::int as n from changed`.execute(db);
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
  const { rows } = await sql<{ matched: number; changed: number }>`
    with matched as (
      select c.id from contacts c where c.account_id = ${accountId} and ${selector} order by c.id for update
    ), changed as (
      update contacts c set tags = ${next}, updated_at = now()
      from matched m
      where c.id = m.id and c.tags is distinct from ${next} and cardinality(${next}) <= ${change.maxTags}
      returning c.*
    ), appended as (${tagsChangedEvents(accountId)})
    select (select count(*)::int from matched) as matched, (select count(*)::int from changed) as changed`.execute(db);
  return rows[0];
}

/** Erasure (GDPR): deletes the contact (its topic opt-outs go with it); answers its address, or null when the account has no such contact. */
export async function deleteContact(db: Db, accountId: string, contactId: string): Promise<string | null> {
  const row = await db.deleteFrom('contacts').where('account_id', '=', accountId).where('id', '=', contactId).returning('email').executeTakeFirst();
  return row?.email ?? null;
}

/**
 * Deletes the account's contacts among `contactIds` as `DELETE /contacts/{id}` deletes one, each
 * with its `contact.deleted`, in one statement that locks them in id order. Answers how many.
 */
export async function deleteContacts(db: Db, accountId: string, contactIds: readonly string[]): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with locked as (
      select id from contacts where account_id = ${accountId} and id = any(${contactIds}::text[]) order by id for update
    ), deleted as (
      delete from contacts c using locked l where c.id = l.id returning c.id
    ), appended as (${appendingEach(accountId, 'contact.deleted', sql<{ data: EventData<'contact.deleted'> }>`select json_build_object('contact_id', d.id) as data from deleted d order by d.id`)})
    select count(*)::int as n from deleted`.execute(db);
  return rows[0].n;
}

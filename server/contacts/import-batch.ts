import { sql, type RawBuilder } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import { copyBytes } from '../db/copy.ts';
import type { Db } from '../db/kysely.ts';
import { PER_ROW_LOOKUPS } from '../db/pool.ts';
import { pendingSignup } from './pending-signups.ts';
import { countingChanges, type StatusChange } from './status-counts.ts';

/** What an import's batch writes of the contacts: the contacts' public write for imports. */

/**
 * The columns of an import batch's COPY text, in order: one line per address, `tags` as an array
 * literal, `attributes` as JSON text, `status` empty (`\N`) when the row gave none.
 */
export const IMPORT_STAGING_COLUMNS = 'row, id, email, first_name, last_name, tags, status, attributes, timezone';

/** Set first in the batch's transaction, in one round trip, before the COPY. */
const PREPARE_STAGING = sql.raw(`${PER_ROW_LOOKUPS}; create temp table if not exists import_staging (
  row integer, id text, email text, first_name text, last_name text, tags text[], status text, attributes jsonb, timezone text
) on commit delete rows`);

/** One row per address, the last one: rows that only PostgreSQL's lower() makes equal are merged by this. */
const DISTINCT_STAGED = sql`select distinct on (lower(email)) * from import_staging order by lower(email), row desc`;

/**
 * What row `m` changes in existing contact `c`: values it leaves empty are kept, tags and
 * attributes add up, and an import never resubscribes (a `subscribed` row keeps the contact's
 * status), except a contact an unconfirmed sign-up made, which takes the row's status as a new
 * contact would. `m.status` reads an empty status as `subscribed`.
 */
const merge = (m: 'excluded' | 'm', importId: string, at: Date) => {
  const row = sql.raw(m);
  // The batch's time as a value: Citus takes no now() in an upsert's DO UPDATE SET.
  const now = sql`${at}::timestamptz`;
  return sql`
    first_name = coalesce(${row}.first_name, c.first_name),
    last_name = coalesce(${row}.last_name, c.last_name),
    timezone = coalesce(${row}.timezone, c.timezone),
    attributes = c.attributes || ${row}.attributes,
    tags = array(select distinct t from unnest(c.tags || ${row}.tags) t order by t),
    status = case when ${pendingSignup('c')} or ${row}.status <> 'subscribed' then ${row}.status else c.status end,
    status_reason = case when ${pendingSignup('c')} then case when ${row}.status <> 'subscribed' then 'import' end
      when ${row}.status = 'subscribed' or ${row}.status = c.status then c.status_reason else 'import' end,
    status_changed_at = case when ${pendingSignup('c')} then case when ${row}.status <> 'subscribed' then ${now} end
      when ${row}.status = 'subscribed' or ${row}.status = c.status then c.status_changed_at else ${now} end,
    last_import_id = ${importId},
    updated_at = ${now}`;
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
const insertOrMerge = (accountId: string, importId: string, mode: ImportMode, at: Date): RawBuilder<Written> => sql<Written>`
  with written as (
    insert into contacts as c (id, account_id, email, first_name, last_name, timezone, attributes, tags, status, status_reason, status_changed_at, last_import_id)
    select s.id, ${accountId}, s.email, s.first_name, s.last_name, s.timezone, s.attributes, s.tags, coalesce(s.status, 'subscribed'),
           case when s.status in ('unsubscribed', 'bounced', 'complained') then 'import' end,
           case when s.status in ('unsubscribed', 'bounced', 'complained') then now() end, ${importId}
    from (${DISTINCT_STAGED}) s
    on conflict (account_id, lower(email) text_pattern_ops) do update set ${merge('excluded', importId, at)}
    where ${sql.lit(mode === 'upsert')} or c.last_import_id = excluded.last_import_id or ${pendingSignup('c')}
    returning old.id is null or ${pendingSignup('old')} as created, old.last_import_id is not distinct from ${importId} as repeat,
      c.account_id, old.status as before, c.status as after
  ), counted as (${countingChanges(sql<StatusChange>`select account_id, before, after from written`)})
  select count(*) filter (where created)::int as created, count(*) filter (where not created and not repeat)::int as updated from written`;

/** `update_only`: rows whose address is not a contact yet (or only an unconfirmed sign-up's) are skipped. */
const mergeOnly = (accountId: string, importId: string, at: Date): RawBuilder<Written> => sql<Written>`
  with written as (
    update contacts c set ${merge('m', importId, at)}
    from (select row, email, first_name, last_name, timezone, attributes, tags, coalesce(status, 'subscribed') as status from (${DISTINCT_STAGED}) d) m
    where c.account_id = ${accountId} and lower(c.email) = lower(m.email) and not ${pendingSignup('c')}
    returning old.last_import_id is not distinct from ${importId} as repeat, c.account_id, old.status as before, c.status as after
  ), counted as (${countingChanges(sql<StatusChange>`select account_id, before, after from written`)})
  select 0 as created, count(*) filter (where not repeat)::int as updated from written`;

/**
 * Writes an import batch's rows (COPY text in `IMPORT_STAGING_COLUMNS`, one line per address)
 * into the account's contacts, in the caller's transaction (`Transactions.run`'s handle): COPY into a session
 * staging table, then one set-based statement. A row for an address this import wrote before
 * is merged into it and counts as neither created nor updated. COPY earns its place here: a
 * batch is held as this text, outside the import thread's heap, and PostgreSQL reads it without
 * parsing array literals of parameters. Needs PostgreSQL 18 (`RETURNING old`).
 */
export async function writeImportedContacts(db: Db, target: { accountId: string; importId: string; mode: ImportMode }, copyText: Buffer): Promise<Written> {
  // One round trip before the COPY: the import's parser shares the thread, and each reply waits for it.
  await PREPARE_STAGING.execute(db);
  await copyBytes(db, 'import_staging', IMPORT_STAGING_COLUMNS, copyText);
  const statement =
    target.mode === 'update_only'
      ? mergeOnly(target.accountId, target.importId, new Date())
      : insertOrMerge(target.accountId, target.importId, target.mode, new Date());
  const {
    rows: [written],
  } = await statement.execute(db);
  return written;
}

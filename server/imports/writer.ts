import { copyBytes } from '../db/copy.ts';
import { PER_ROW_LOOKUPS, type PoolClient } from '../db/pool.ts';
import { STAGING_COLUMNS, type StagingBatch } from './batch.ts';

export type ImportMode = 'upsert' | 'create_only' | 'update_only';

export interface BatchCounts {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

/**
 * Which of an import's writers owns an address (FNV-1a of it, ASCII case folded). Rows for one
 * address must meet in one writer, whose batches commit in file order, or a later row could be
 * written before an earlier one. An address with any other character goes to the first writer;
 * PostgreSQL's lower() makes such an address equal to an ASCII one only through a few letters
 * (the Kelvin sign is a k), a pair that could still be written out of order.
 */
export function writerFor(email: string, writers: number): number {
  if (writers === 1) return 0;
  let hash = 0x811c9dc5;
  for (let i = 0; i < email.length; i++) {
    let c = email.charCodeAt(i);
    if (c > 0x7f) return 0;
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  return (hash >>> 0) % writers;
}

/** One row per address, the last one: rows that only PostgreSQL's lower() makes equal are merged by this. */
const DISTINCT_STAGED = 'select distinct on (lower(email)) * from import_staging order by lower(email), row desc';

/**
 * What row `m` changes in existing contact `c`: values it leaves empty are kept, tags and
 * attributes add up, and an import never resubscribes (a `subscribed` row keeps the contact's
 * status). `m.status` reads an empty status as `subscribed`.
 */
const merge = (m: string) => `
  first_name = coalesce(${m}.first_name, c.first_name),
  last_name = coalesce(${m}.last_name, c.last_name),
  attributes = c.attributes || ${m}.attributes,
  tags = array(select distinct t from unnest(c.tags || ${m}.tags) t order by t),
  status = case when ${m}.status = 'subscribed' then c.status else ${m}.status end,
  status_reason = case when ${m}.status = 'subscribed' or ${m}.status = c.status then c.status_reason else 'import' end,
  status_changed_at = case when ${m}.status = 'subscribed' or ${m}.status = c.status then c.status_changed_at else now() end,
  last_import_id = $2,
  updated_at = now()`;

/**
 * `upsert` and `create_only` in one statement: a new address is inserted; an existing one is
 * merged (`create_only`: only when it was written earlier by this same import, i.e. a repeat
 * in the file). Rows go in address order, so concurrent imports lock contacts in one order.
 */
const INSERT_OR_MERGE = `
  with written as (
    insert into contacts as c (id, account_id, email, first_name, last_name, attributes, tags, status, status_reason, status_changed_at, last_import_id)
    select s.id, $1, s.email, s.first_name, s.last_name, s.attributes, s.tags, coalesce(s.status, 'subscribed'),
           case when s.status in ('unsubscribed', 'bounced', 'complained') then 'import' end,
           case when s.status in ('unsubscribed', 'bounced', 'complained') then now() end, $2
    from (${DISTINCT_STAGED}) s
    on conflict (account_id, lower(email) text_pattern_ops) do update set ${merge('excluded')}
    where $3 = 'upsert' or c.last_import_id = $2
    returning old.id is null as created, old.last_import_id is not distinct from $2 as repeat
  )
  select count(*) filter (where created)::int as created, count(*) filter (where not created and not repeat)::int as updated from written`;

/** `update_only`: rows whose address is not a contact yet are skipped. */
const MERGE_ONLY = `
  with written as (
    update contacts c set ${merge('m')}
    from (select row, email, first_name, last_name, attributes, tags, coalesce(status, 'subscribed') as status from (${DISTINCT_STAGED}) d) m
    where c.account_id = $1 and lower(c.email) = lower(m.email)
    returning old.last_import_id is not distinct from $2 as repeat
  )
  select 0 as created, count(*) filter (where not repeat)::int as updated from written`;

/**
 * Writes one batch in the caller's transaction: COPY into a session staging table, then one
 * set-based statement. Rows repeating an email (in the batch, or earlier in the same import) are
 * merged: the later row wins and counts as skipped. Needs PostgreSQL 18 (`RETURNING old`).
 */
export async function writeBatch(
  client: PoolClient,
  target: { importId: string; accountId: string; mode: ImportMode },
  batch: StagingBatch,
): Promise<BatchCounts> {
  let created = 0;
  let updated = 0;
  const { errors } = batch;
  if (batch.rows) {
    // One round trip before the COPY: the parser shares this thread, and each reply waits for it.
    await client.query(`${PER_ROW_LOOKUPS}; create temp table if not exists import_staging (
      row integer, id text, email text, first_name text, last_name text, tags text[], status text, attributes jsonb
    ) on commit delete rows`);
    await copyBytes(client, 'import_staging', STAGING_COLUMNS, batch.lines());
    const { rows: [counts] } =
      target.mode === 'update_only'
        ? await client.query(MERGE_ONLY, [target.accountId, target.importId])
        : await client.query(INSERT_OR_MERGE, [target.accountId, target.importId, target.mode]);
    created = counts.created;
    updated = counts.updated;
  }
  if (errors.length) {
    await client.query(
      `insert into contact_import_errors (import_id, row, email, code, detail)
       select $1, * from unnest($2::int[], $3::text[], $4::text[], $5::text[])
       on conflict do nothing`,
      [target.importId, errors.map((e) => e.row), errors.map((e) => e.email), errors.map((e) => e.code), errors.map((e) => e.detail)],
    );
  }
  return { created, updated, skipped: batch.rows - created - updated, failed: errors.length };
}

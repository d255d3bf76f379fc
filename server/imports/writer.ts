import { copyLines, copyRows, type CopyValue } from '../db/copy.ts';
import { PER_ROW_LOOKUPS, type PoolClient } from '../db/pool.ts';
import type { RowError } from './errors.ts';
import type { ImportRow } from './rows.ts';

export type ImportMode = 'upsert' | 'create_only' | 'update_only';

export interface BatchCounts {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

const arrayLiteral = (items: string[]) => `{${items.map((t) => `"${t.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

const STAGING_COLUMNS = 'row, id, email, first_name, last_name, tags, status, attributes';

const stagingRow = (r: ImportRow): CopyValue[] => [r.row, r.id, r.email, r.firstName, r.lastName, arrayLiteral(r.tags), r.status, JSON.stringify(r.attributes)];

/** Two rows for one email become one: the later row's values win, tags and attributes add up. */
function mergeRows(earlier: ImportRow, later: ImportRow): ImportRow {
  return {
    row: later.row,
    id: earlier.id,
    email: later.email,
    firstName: later.firstName ?? earlier.firstName,
    lastName: later.lastName ?? earlier.lastName,
    status: later.status ?? earlier.status,
    tags: [...new Set([...earlier.tags, ...later.tags])],
    attributes: { ...earlier.attributes, ...later.attributes },
  };
}

function mergeByEmail(rows: ImportRow[]): ImportRow[] {
  const byEmail = new Map<string, ImportRow>();
  for (const row of rows) {
    const key = row.email.toLowerCase();
    const earlier = byEmail.get(key);
    byEmail.set(key, earlier ? mergeRows(earlier, row) : row);
  }
  return [...byEmail.values()];
}

/**
 * Writes one batch in the caller's transaction: COPY into a session staging table, then one
 * set-based upsert. Rows repeating an email (in the batch, or earlier in the same import) are
 * merged: the later row wins and counts as skipped. Existing contacts keep values the row leaves
 * empty, gain its tags and attributes, and are never resubscribed by an import.
 */
export async function writeBatch(
  client: PoolClient,
  target: { importId: string; accountId: string; mode: ImportMode },
  rows: ImportRow[],
  errors: RowError[],
): Promise<BatchCounts> {
  let created = 0;
  let updated = 0;
  if (rows.length) {
    await client.query(`create temp table if not exists import_staging (
      row integer, id text, email text, first_name text, last_name text, tags text[], status text, attributes jsonb
    ) on commit delete rows`);
    await copyLines(client, 'import_staging', STAGING_COLUMNS, copyRows(mergeByEmail(rows).map(stagingRow)));
    await client.query(PER_ROW_LOOKUPS);
    const { rows: [counts] } = await client.query(
      `with matched as (
         select b.*, c.id as contact_id, c.last_import_id is not distinct from $2 as repeat
         from import_staging b left join lateral (
           select id, last_import_id from contacts
           where account_id = $1 and lower(email) = lower(b.email)
           for update
         ) c on true
       ),
       inserted as (
         insert into contacts (id, account_id, email, first_name, last_name, attributes, tags, status, status_reason, status_changed_at, last_import_id)
         select m.id, $1, m.email, m.first_name, m.last_name, m.attributes, m.tags, coalesce(m.status, 'subscribed'),
                case when m.status in ('unsubscribed', 'bounced', 'complained') then 'import' end,
                case when m.status in ('unsubscribed', 'bounced', 'complained') then now() end, $2
         from matched m
         where m.contact_id is null and $3 <> 'update_only'
         on conflict do nothing
         returning 1
       ),
       changed as (
         update contacts c set
           first_name = coalesce(m.first_name, c.first_name),
           last_name = coalesce(m.last_name, c.last_name),
           attributes = c.attributes || m.attributes,
           tags = array(select distinct t from unnest(c.tags || m.tags) t order by t),
           status = case when m.status is null or m.status = 'subscribed' then c.status else m.status end,
           status_reason = case when m.status is null or m.status = 'subscribed' or m.status = c.status then c.status_reason else 'import' end,
           status_changed_at = case when m.status is null or m.status = 'subscribed' or m.status = c.status then c.status_changed_at else now() end,
           last_import_id = $2,
           updated_at = now()
         from matched m
         where c.id = m.contact_id and ($3 <> 'create_only' or m.repeat)
         returning m.repeat
       )
       select (select count(*) from inserted)::int as created,
              (select count(*) from changed where not repeat)::int as updated`,
      [target.accountId, target.importId, target.mode],
    );
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
  return { created, updated, skipped: rows.length - created - updated, failed: errors.length };
}

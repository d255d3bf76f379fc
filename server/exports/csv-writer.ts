import { sql, type RawBuilder } from 'kysely';
import { escapeLiteral } from 'pg';
import type { Db } from '../db/kysely.ts';
import { csvLine } from '../formats/csv.ts';
import type { components } from '../../generated/openapi.d.ts';
import { filtersOf, matching, type ContactFilters } from '../contacts/repository.ts';

/** The filters of `GET /contacts` and the ticked contacts, as an export stores them. */
export type ExportFilters = components['schemas']['ContactExportFilters'];

export const FIXED_COLUMNS = ['email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'timezone', 'created_at', 'updated_at'];

/** Attribute keys beyond this many are left out of the columns (a header of thousands of columns helps nobody). */
export const MAX_ATTRIBUTE_COLUMNS = 500;

/** The stored filters as `GET /contacts` takes them. */
const contactFilters = (f: ExportFilters): ContactFilters => ({ ...filtersOf(f), ids: f.contact_ids });

/** What the export writes: its columns, and the filters its contacts match. */
export interface ExportPlan {
  accountId: string;
  filters: ContactFilters;
  keys: string[];
}

/** The columns: the fixed ones, then the attribute keys of the matching contacts in SQL's order. */
export async function planExport(db: Db, accountId: string, stored: ExportFilters): Promise<ExportPlan> {
  const filters = contactFilters(stored);
  // Distinct keys hashed, then sorted: sorting every contact's keys cost five times as much.
  const matched = matching(db.selectFrom('contacts').select('attributes'), accountId, filters);
  const { rows } = await sql<{ key: string }>`select key from (select distinct k.key from (${matched}) c, jsonb_object_keys(c.attributes) as k(key)) keys
    order by key limit ${MAX_ATTRIBUTE_COLUMNS}`.execute(db);
  const keys = rows.map((r) => r.key);
  return { accountId, filters, keys };
}

/** The header line, written as every other line of a Sendline CSV is (`csvLine`). */
export const headerLine = (plan: ExportPlan): string => csvLine([...FIXED_COLUMNS, ...plan.keys]);

/**
 * An attribute's value as the cell's text, as the API's JSON has it: text as it is, JSON null as
 * no value, anything else as `JSON.stringify` writes it. `->>` already writes text, booleans and
 * integers of up to 15 characters that float8 reads back as written so; other numbers, objects
 * and arrays go through the functions of migration 20261124060000. Each branch reads the key
 * again rather than keeping a jsonb copy of the value: a lookup costs less than the copy.
 */
function attributeText(key: string): RawBuilder<string | null> {
  const text = sql`attributes ->> ${key}::text`;
  const value = sql`attributes -> ${key}::text`;
  return sql<string | null>`case jsonb_typeof(${value})
    when 'number' then case when length(${text}) <= 15 and (${text})::float8::text = ${text} then ${text} else sendline_js_number((${text})::numeric) end
    when 'object' then sendline_js_json(${value})
    when 'array' then sendline_js_json(${value})
    else ${text} end`;
}

const utcIso = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Marks a cell that `CopyCsvWriter` guards (formula) or that starts with the mark itself. */
export const MARK = 0x01;

/**
 * A cell as COPY's CSV writer is given it: empty text as null (COPY would quote an empty
 * string), and text a spreadsheet would run as a formula, or that starts with the mark, behind
 * the mark (U+0001): `CopyCsvWriter` turns a marked formula into `csvCell`'s `"'…"`. `ascii`
 * reads the first character's code without copying the text (0 for empty text).
 */
const guarded = (name: string) => {
  const text = sql.ref(name);
  return sql`case when ascii(${text}) in (61, 43, 45, 64, 9, 13, ${sql.lit(MARK)}) then chr(${sql.lit(MARK)}) || ${text} else nullif(${text}, '') end`;
};

/** A statement's SQL with its parameters written in as literals: COPY takes no parameters. */
function inlined(compiled: { sql: string; parameters: readonly unknown[] }): string {
  return compiled.sql.replace(/\$(\d+)\b/g, (_, n: string) => {
    const value = compiled.parameters[Number(n) - 1];
    if (typeof value === 'string') return escapeLiteral(value);
    if (value instanceof Date) return escapeLiteral(value.toISOString());
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return `array[${value.map((v: string) => escapeLiteral(v)).join(',')}]::text[]`;
    throw new Error(`no literal for parameter $${n} of type ${typeof value}`);
  });
}

/**
 * `COPY … TO STDOUT` of the matching contacts in `(created_at, id)` order, one CSV record per
 * contact: PostgreSQL extracts the cells, writes attributes as the API's JSON, applies the
 * formula guard's test and quotes as RFC 4180 asks; `CopyCsvWriter` finishes what COPY cannot
 * (CRLF line ends, quotes around every guarded cell). The texts are computed in a level of
 * their own (`offset 0` keeps the planner from folding it into the next, which would compute
 * an attribute's text once for every time the guard names it).
 */
export function exportCopySql(db: Db, plan: ExportPlan): string {
  const page = matching(
    db
      .selectFrom('contacts')
      .select(['created_at', 'id', 'email', 'first_name', 'last_name', 'status', 'status_reason', 'timezone'])
      .select([sql<string>`array_to_string(tags, ';')`.as('tags'), utcIso('created_at').as('created'), utcIso('updated_at').as('updated')])
      .select('attributes'),
    plan.accountId,
    plan.filters,
  )
    .orderBy('created_at')
    .orderBy('id');
  const texts = [
    ...['created_at', 'id', 'email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'timezone', 'created', 'updated'].map((name) =>
      sql.ref(name),
    ),
    ...plan.keys.map((key, i) => sql`${attributeText(key)} as ${sql.ref(`t${i}`)}`),
  ];
  const cells = [
    ...['email', 'first_name', 'last_name'].map(guarded),
    // The status is one of a few lower-case words and the times are ISO 8601: nothing to guard.
    sql`status`,
    ...['status_reason', 'tags', 'timezone'].map(guarded),
    sql`created`,
    sql`updated`,
    ...plan.keys.map((_, i) => guarded(`t${i}`)),
  ];
  const query = sql`select ${sql.join(cells)} from (select ${sql.join(texts)} from (${page}) page order by created_at, id offset 0) texts order by created_at, id`;
  return `copy (${inlined(query.compile(db))}) to stdout with (format csv)`;
}

import { sql, type Expression, type RawBuilder } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { csvLine } from '../http/csv.ts';
import type { ContactStatus } from '../contacts/rules.ts';
import { matching, type ContactFilters } from '../contacts/repository.ts';

/** The filters of `GET /contacts`, as an export stores them. */
export interface ExportFilters {
  status?: ContactStatus;
  tag?: string;
  email?: string;
  q?: string;
  created_after?: string;
  created_before?: string;
}

export const FIXED_COLUMNS = ['email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'created_at', 'updated_at'];

/** Attribute keys beyond this many are left out of the columns (a header of thousands of columns helps nobody). */
export const MAX_ATTRIBUTE_COLUMNS = 500;

/** The stored filters as `GET /contacts` takes them. */
const contactFilters = (f: ExportFilters): ContactFilters => ({
  status: f.status,
  tag: f.tag,
  email: f.email,
  q: f.q,
  createdAfter: f.created_after ? new Date(f.created_after) : undefined,
  createdBefore: f.created_before ? new Date(f.created_before) : undefined,
});

/** Where a page of contacts starts: after this contact in `(created_at, id)` order. */
export interface ExportCursor {
  at: Date;
  id: string;
}

/** A line of the CSV and the contact it is of. */
export interface ExportLine {
  created_at: Date;
  id: string;
  line: string;
}

/** What the export writes: its columns, and the filters its contacts match. */
export interface ExportPlan {
  accountId: string;
  filters: ContactFilters;
  keys: string[];
}

/** The columns: the fixed ones, then the attribute keys of the matching contacts in SQL's order. */
export async function planExport(db: Db, accountId: string, stored: ExportFilters): Promise<ExportPlan> {
  const filters = contactFilters(stored);
  const keys = (
    await matching(db.selectFrom('contacts'), accountId, filters)
      .select(sql<string>`jsonb_object_keys(attributes)`.as('key'))
      .distinct()
      .orderBy('key')
      .limit(MAX_ATTRIBUTE_COLUMNS)
      .execute()
  ).map((r) => r.key);
  return { accountId, filters, keys };
}

/** The header line, written as every other line of a Sendline CSV is (`csvLine`). */
export const headerLine = (plan: ExportPlan): string => csvLine([...FIXED_COLUMNS, ...plan.keys]);

/**
 * One cell of `csvLine` in SQL, byte for byte (`csvCell` in server/http/csv.ts): null and empty
 * text are empty; text a spreadsheet would run as a formula gets a leading `'` and quotes; text
 * with quotes, commas or line breaks is quoted. `strpos` is used rather than a regular
 * expression: PostgreSQL converts the text to wide characters for every match.
 */
function csvCell(text: RawBuilder<string | null>): RawBuilder<string> {
  const doubled = sql`replace(${text}, '"', '""')`;
  return sql<string>`case
    when ${text} is null or ${text} = '' then ''
    when strpos(E'=+-@\\t\\r', left(${text}, 1)) > 0 then '"''' || ${doubled} || '"'
    when strpos(${text}, '"') > 0 or strpos(${text}, ',') > 0 or strpos(${text}, E'\\n') > 0 or strpos(${text}, E'\\r') > 0 then '"' || ${doubled} || '"'
    else ${text} end`;
}

/**
 * An attribute's value as the cell's text, as the API's JSON has it: text as it is, JSON null as
 * no value, anything else as `JSON.stringify` writes it. Integers of up to 15 characters read
 * back from float8 as written are already written so; other numbers, objects and arrays go
 * through the functions of migration 20261124060000.
 */
function attributeText(value: RawBuilder<unknown>): RawBuilder<string | null> {
  return sql<string | null>`case jsonb_typeof(${value})
    when 'string' then ${value} #>> '{}'
    when 'boolean' then ${value}::text
    when 'null' then null
    when 'number' then case when length(${value}::text) <= 15 and (${value}::text)::float8::text = ${value}::text then ${value}::text else sendline_js_number(${value}::numeric) end
    else sendline_js_json(${value}) end`;
}

const utcIso = (column: string) => sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The CSV lines of up to `limit` matching contacts after `after`, in `(created_at, id)` order:
 * rows of `(created_at, id, line)`, each line ended by CRLF. PostgreSQL writes them; each
 * subquery level computes its values once (`offset 0` keeps the planner from folding a level
 * into the next, which would compute a value once for every time a cell's test names it).
 */
export function exportLines(db: Db, plan: ExportPlan, after: ExportCursor | null, limit: number): Expression<ExportLine> {
  let page = matching(
    db
      .selectFrom('contacts')
      .select(['created_at', 'id', 'email', 'first_name', 'last_name', 'status', 'status_reason'])
      .select([sql<string>`array_to_string(tags, ';')`.as('tags'), utcIso('created_at').as('created'), utcIso('updated_at').as('updated')])
      .select(plan.keys.map((key, i) => sql<unknown>`attributes -> ${key}::text`.as(`a${i}`))),
    plan.accountId,
    plan.filters,
  );
  if (after) page = page.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
  const ordered = page.orderBy('created_at').orderBy('id').limit(limit);
  const column = (name: string) => sql<string | null>`${sql.ref(name)}`;
  const texts = [
    ...['created_at', 'id', 'email', 'first_name', 'last_name', 'status', 'status_reason', 'tags', 'created', 'updated'].map((name) => sql.ref(name)),
    ...plan.keys.map((_, i) => sql`${attributeText(sql.ref(`a${i}`))} as ${sql.ref(`t${i}`)}`),
  ];
  const cells = [
    ...['email', 'first_name', 'last_name'].map((name) => csvCell(column(name))),
    // The status is one of a few lower-case words and the times are ISO 8601: nothing to quote.
    sql`status`,
    ...['status_reason', 'tags'].map((name) => csvCell(column(name))),
    sql`created`,
    sql`updated`,
    ...plan.keys.map((_, i) => csvCell(column(`t${i}`))),
  ];
  return sql<ExportLine>`(select created_at, id, ${sql.join(cells, sql` || ',' || `)} || E'\\r\\n' as line from (select ${sql.join(texts)} from (${ordered}) page offset 0) texts)`;
}

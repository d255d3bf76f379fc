import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileDatabaseUrl, withClient } from '../databases.ts';

/**
 * What Citus needs of a table distributed by account, checked on the migrated schema: an
 * `account_id` column, in its primary key and every unique constraint; foreign keys that carry
 * it; no triggers. Today's schema breaks these rules in places (known-violations.json); the list
 * may only shrink, and a new table or constraint must follow them from its first migration.
 * `UPDATE_KNOWN_VIOLATIONS=1` rewrites the list once violations are gone.
 */

const KNOWN = fileURLToPath(new URL('known-violations.json', import.meta.url));

/**
 * Tables not distributed by account, each by decision: the migrations' table and the counters
 * shared by every account stay on the coordinator (so do the job queue's, which Agenda makes as
 * it starts, outside the migrations); `accounts` is the
 * table the others are co-located with (distributed by its `id`); `users`, `api_keys` and
 * `sessions` are looked up without their account (a log-in by address, a key by its hash, a
 * session by its id) and become reference tables.
 */
const NOT_BY_ACCOUNT = new Set(['mikro_orm_migrations', 'rate_limit_counters', 'relay_send_slots', 'accounts', 'users', 'api_keys', 'sessions']);

interface TableFacts {
  table: string;
  columns: string[];
  /** Primary key and unique constraints: name and columns. */
  keys: { name: string; primary: boolean; columns: string[] }[];
  foreignKeys: { name: string; columns: string[] }[];
  triggers: string[];
}

async function schemaFacts(): Promise<TableFacts[]> {
  return withClient(fileDatabaseUrl(), async (db) => {
    const { rows } = await db.query<TableFacts>(`
      select c.relname as table,
        array(select a.attname from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum)::text[] as columns,
        coalesce((select json_agg(json_build_object('name', k.conname, 'primary', k.contype = 'p',
            'columns', array(select a.attname from unnest(k.conkey) u(n) join pg_attribute a on a.attrelid = c.oid and a.attnum = u.n)) order by k.conname)
          from pg_constraint k where k.conrelid = c.oid and k.contype in ('p', 'u')), '[]') as keys,
        coalesce((select json_agg(json_build_object('name', k.conname,
            'columns', array(select a.attname from unnest(k.conkey) u(n) join pg_attribute a on a.attrelid = c.oid and a.attnum = u.n)) order by k.conname)
          from pg_constraint k where k.conrelid = c.oid and k.contype = 'f'), '[]') as "foreignKeys",
        array(select t.tgname from pg_trigger t where t.tgrelid = c.oid and not t.tgisinternal order by t.tgname)::text[] as triggers
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
      order by c.relname`);
    return rows;
  });
}

/** Each rule a table distributed by account breaks, in words. */
function violations(facts: TableFacts): string[] {
  if (NOT_BY_ACCOUNT.has(facts.table)) return [];
  const found: string[] = [];
  if (!facts.columns.includes('account_id')) found.push('has no account_id');
  if (!facts.keys.some((k) => k.primary)) found.push('has no primary key');
  for (const key of facts.keys) {
    if (!key.columns.includes('account_id'))
      found.push(`${key.primary ? 'primary key' : 'unique constraint'} ${key.name} (${key.columns.join(', ')}) lacks account_id`);
  }
  for (const key of facts.foreignKeys) {
    if (!key.columns.includes('account_id')) found.push(`foreign key ${key.name} (${key.columns.join(', ')}) lacks account_id`);
  }
  for (const trigger of facts.triggers) found.push(`has trigger ${trigger}`);
  return found;
}

describe('the schema, for distribution by account on Citus', () => {
  it('breaks no rule beyond the known violations, and every known one still exists', async () => {
    const facts = await schemaFacts();
    const current = Object.fromEntries(facts.map((f) => [f.table, violations(f)]).filter(([, list]) => list.length));
    const known = JSON.parse(readFileSync(KNOWN, 'utf8')) as Record<string, string[]>;
    const list = (byTable: Record<string, string[]>) => Object.entries(byTable).flatMap(([table, found]) => found.map((v) => `${table}: ${v}`));
    const [now, before] = [new Set(list(current)), new Set(list(known))];
    expect(
      [...now].filter((v) => !before.has(v)),
      'new violations: a new table or constraint must carry account_id',
    ).toEqual([]);
    // Only ever shrinks: rewritten once nothing new is found.
    if (process.env.UPDATE_KNOWN_VIOLATIONS) return writeFileSync(KNOWN, `${JSON.stringify(current, null, 2)}\n`);
    expect(
      [...before].filter((v) => !now.has(v)),
      'fixed violations: run with UPDATE_KNOWN_VIOLATIONS=1 to shrink the list',
    ).toEqual([]);
  });

  it('names every table it exempts', async () => {
    const tables = new Set((await schemaFacts()).map((f) => f.table));
    expect([...NOT_BY_ACCOUNT].filter((table) => !tables.has(table))).toEqual([]);
  });
});

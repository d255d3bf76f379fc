import { describe, expect, it } from 'vitest';
import { COORDINATOR_TABLES, REFERENCE_TABLES } from '../../server/db/citus.ts';
import { fileDatabaseUrl, withClient } from '../databases.ts';

/**
 * What Citus needs of a table distributed by account, checked on the migrated schema of a single
 * node: an `account_id` column, in its primary key and every unique constraint and index;
 * foreign keys that carry it; no triggers (they would run on the shard). The tables that are not
 * distributed by account are named in server/db/citus.ts, each by decision; references tables
 * hold no trigger either.
 */
const NOT_BY_ACCOUNT = new Set([...REFERENCE_TABLES, ...COORDINATOR_TABLES]);

interface TableFacts {
  table: string;
  columns: string[];
  /** Unique indexes (the primary key's and unique constraints' among them): name and columns. */
  keys: { name: string; primary: boolean; columns: string[] }[];
  foreignKeys: { name: string; columns: string[] }[];
  triggers: string[];
}

async function schemaFacts(): Promise<TableFacts[]> {
  return withClient(fileDatabaseUrl(), async (db) => {
    const { rows } = await db.query<TableFacts>(`
      select c.relname as table,
        array(select a.attname from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum)::text[] as columns,
        coalesce((select json_agg(json_build_object('name', i.indexrelid::regclass::text, 'primary', i.indisprimary,
            'columns', array(select a.attname from unnest(i.indkey::int2[]) u(n) join pg_attribute a on a.attrelid = c.oid and a.attnum = u.n)) order by 1)
          from pg_index i where i.indrelid = c.oid and i.indisunique), '[]') as keys,
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

/** Each rule the table breaks, in words: a reference table's, none but triggers. */
function violations(facts: TableFacts): string[] {
  if (COORDINATOR_TABLES.includes(facts.table)) return [];
  const found = facts.triggers.map((trigger) => `has trigger ${trigger}`);
  if (NOT_BY_ACCOUNT.has(facts.table)) return found;
  if (!facts.columns.includes('account_id')) found.push('has no account_id');
  if (!facts.keys.some((k) => k.primary)) found.push('has no primary key');
  for (const key of facts.keys) {
    if (!key.columns.includes('account_id'))
      found.push(`${key.primary ? 'primary key' : 'unique index'} ${key.name} (${key.columns.join(', ')}) lacks account_id`);
  }
  for (const key of facts.foreignKeys) {
    if (!key.columns.includes('account_id')) found.push(`foreign key ${key.name} (${key.columns.join(', ')}) lacks account_id`);
  }
  return found;
}

describe('the schema, for distribution by account on Citus', () => {
  it('keys every table by account but those it names, and has no trigger', async () => {
    const found = (await schemaFacts()).flatMap((facts) => violations(facts).map((v) => `${facts.table}: ${v}`));
    expect(found).toEqual([]);
  });

  it('names every table it exempts', async () => {
    const tables = new Set((await schemaFacts()).map((f) => f.table));
    expect([...NOT_BY_ACCOUNT].filter((table) => !tables.has(table))).toEqual([]);
  });
});

import type pg from 'pg';
import { ConfigError } from '../config-error.ts';
import { VERSION } from '../version.ts';
import { migrations } from './migrations/index.ts';

/** Where a database's schema stands against the migrations this code knows. */
export interface SchemaState {
  /** Applied migrations, oldest first. */
  applied: string[];
  /** Migrations of this code not applied yet: what starting the server would run. */
  pending: string[];
  /** Applied migrations this code does not know: a newer release migrated the database. */
  unknown: string[];
}

export const KNOWN_MIGRATIONS = migrations.map((m) => m.name);

/** Reads the migration table without creating it (a database never migrated has none). */
export async function readSchemaState(db: Pick<pg.Client, 'query'>): Promise<SchemaState> {
  const {
    rows: [{ exists }],
  } = await db.query<{ exists: boolean }>("select to_regclass('public.mikro_orm_migrations') is not null as exists");
  const applied = exists ? (await db.query<{ name: string }>('select name from mikro_orm_migrations order by id')).rows.map((r) => r.name) : [];
  const done = new Set(applied);
  const known = new Set(KNOWN_MIGRATIONS);
  return { applied, pending: KNOWN_MIGRATIONS.filter((name) => !done.has(name)), unknown: applied.filter((name) => !known.has(name)) };
}

/**
 * A schema a newer release migrated may have moved or reshaped what this code reads and writes:
 * serving it could lose data, so the server does not start.
 */
export function requireKnownSchema(state: SchemaState): void {
  if (!state.unknown.length) return;
  throw new ConfigError(
    `The database was migrated by a newer Sendline than this one (${VERSION}): it has migrations this version does not know ` +
      `(${state.unknown.join(', ')}). Run that release or a later one, or restore a backup taken before the upgrade.`,
  );
}

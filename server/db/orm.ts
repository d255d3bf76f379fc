import { MikroORM, type Configuration, type Options } from '@mikro-orm/core';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import { ConfigError } from '../config-error.ts';
import type { Logger } from '../logger.ts';
import { migrations } from './migrations/index.ts';
import { readSchemaState, requireKnownSchema } from './schema.ts';

export type Orm = MikroORM<PostgreSqlDriver>;
export type { EntityManager };

/**
 * MikroORM writes every parameter into the SQL text, escaping it one character at a time by
 * string concatenation: 1 MB of campaign content cost the thread that answers requests 50–100 ms
 * and a garbage collection storm on each save. This escapes the same way, in native passes.
 */
export function escapeLiteral(text: string): string {
  const quoted = `'${text.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`;
  return text.includes('\\') ? ` E${quoted}` : quoted;
}

class Driver extends PostgreSqlDriver {
  constructor(config: Configuration) {
    super(config);
    // MikroORM declares escapeLiteral private; this replaces it at run time (see above).
    (this.getPlatform() as unknown as { escapeLiteral: typeof escapeLiteral }).escapeLiteral = escapeLiteral;
  }
}

/**
 * Opens the database with the given entities and, unless told not to, migrates it (see `migrate`). The ORM's pool is the
 * process's only one: COPY, the job queue and long transactions borrow its connections
 * (`nativePool`). pg's own type parsers replace MikroORM's, so SQL written outside the ORM reads
 * timestamps as `Date`s, as its types say; the ORM parses either form.
 */
/** The tables' entities (`server/entities.ts`): the features define them, the caller hands them in. */
export type Entities = readonly NonNullable<Options['entities']>[number][];

export async function openDatabase(url: string, entities: Entities, log: Logger, poolSize = 20, options: { migrate?: boolean } = {}): Promise<Orm> {
  const orm = await MikroORM.init<PostgreSqlDriver>({
    driver: Driver,
    clientUrl: url,
    entities: [...entities],
    extensions: [Migrator],
    pool: { min: 0, max: poolSize },
    driverOptions: { types: new pg.TypeOverrides() },
    migrations: { migrationsList: migrations, snapshot: false, silent: true, transactional: true },
    allowGlobalContext: false,
    debug: false,
  });
  if (options.migrate ?? true) await migrate(orm, url, log);
  return orm;
}

/** The ORM's `pg` pool, for what needs a connection of its own: COPY, streaming, the job queue. */
export function nativePool(orm: Orm): Promise<pg.Pool> {
  return orm.em.getConnection().getNativeClient();
}

export const SCHEMA_LOCK = 7_311_402;

/**
 * Runs `work` holding a database-wide advisory lock, so processes starting together change
 * the schema one at a time (migrations, and the job queue's own tables). `work` gets the
 * connection that holds the lock.
 */
export async function withSchemaLock<T>(url: string, work: (db: pg.Client) => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    return await work(lock);
  } finally {
    await lock.end();
  }
}

/** Imports read `RETURNING old`, new in PostgreSQL 18. */
const MIN_SERVER_VERSION = 180000;

/** Refuses a database too old for the schema and queries, before migrating it. */
export function requireServerVersion(versionNum: number): void {
  if (versionNum >= MIN_SERVER_VERSION) return;
  const version = `${Math.floor(versionNum / 10000)}.${versionNum % 10000}`;
  throw new ConfigError(`DATABASE_URL points to PostgreSQL ${version}; Sendline needs PostgreSQL 18 or later.`);
}

/**
 * Applies the pending migrations, each in its transaction, under the schema lock: of processes
 * starting together, the first applies them and the others find nothing left to do. A schema
 * that a newer release migrated is refused before anything is applied.
 */
export async function migrate(orm: Orm, url: string, log: Logger): Promise<string[]> {
  const [{ server_version_num }] = await orm.em.getConnection().execute<{ server_version_num: string }[]>('show server_version_num');
  requireServerVersion(Number(server_version_num));
  return withSchemaLock(url, async (db) => {
    requireKnownSchema(await readSchemaState(db));
    const applied = (await orm.migrator.up()).map((m) => m.name);
    if (applied.length) log.info({ migrations: applied }, 'database migrated');
    return applied;
  });
}

import { MikroORM } from '@mikro-orm/core';
import pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver, type EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from '../logger.ts';
import { Account, Session, User } from '../auth/entities.ts';
import { ApiKey } from '../api-keys/entities.ts';
import { Event } from '../events/entities.ts';
import { Contact } from '../contacts/entities.ts';
import { Campaign } from '../campaigns/entities.ts';
import { migrations } from './migrations/index.ts';

export const entities = [Account, User, Session, ApiKey, Event, Contact, Campaign];

export type Orm = MikroORM<PostgreSqlDriver>;
export type { EntityManager };

export async function openDatabase(url: string, log: Logger, poolSize = 10): Promise<Orm> {
  const orm = await MikroORM.init<PostgreSqlDriver>({
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: poolSize },
    migrations: { migrationsList: migrations, snapshot: false, silent: true, transactional: true },
    allowGlobalContext: false,
    debug: false,
  });
  await migrate(orm, url, log);
  return orm;
}

const SCHEMA_LOCK = 7_311_402;

/**
 * Runs `work` holding a database-wide advisory lock, so processes starting together change
 * the schema one at a time (migrations, and the job queue's own tables).
 */
export async function withSchemaLock<T>(url: string, work: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [SCHEMA_LOCK]);
    return await work();
  } finally {
    await lock.end();
  }
}

async function migrate(orm: Orm, url: string, log: Logger): Promise<void> {
  await withSchemaLock(url, async () => {
    const applied = await orm.migrator.up();
    if (applied.length) log.info({ migrations: applied.map((m) => m.name) }, 'database migrated');
  });
}

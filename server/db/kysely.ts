import { Kysely, PostgresDialect, type PostgresPoolClient, type Transaction } from 'kysely';
import type { ClientBase } from 'pg';
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { entities } from './entities.ts';

/** The schema as Kysely sees it, inferred from the entities: table and column names as in SQL. */
export type Database = InferKyselyDB<(typeof entities)[number]>;

/** Typed SQL on the ORM's connection; inside `em.transactional`, on its transaction. */
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/** The query builder for what the ORM does not express well (batches, claims, rollups, CTEs). */
export function sqlOf(em: EntityManager): Db {
  return em.getKysely() as unknown as Db;
}

/**
 * Typed SQL on one connection borrowed as a raw `pg` client, for a transaction that also needs
 * the client itself (COPY, `insertEvents`). The caller begins, commits and releases the client;
 * this never releases it.
 */
export function sqlOn(client: ClientBase): Db {
  const connection: PostgresPoolClient = {
    query: client.query.bind(client) as PostgresPoolClient['query'],
    release() {},
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {}, options: {} } }) });
}

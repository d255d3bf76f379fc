import { Kysely, PostgresDialect, type PostgresPool, type Transaction } from 'kysely';
import type { PoolClient } from 'pg';
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
 * Typed SQL on one connection borrowed from the ORM's pool, for a transaction that also COPYs
 * (which needs the `pg` client itself): the statements run on `client`, in its transaction.
 */
export function sqlOnClient(client: PoolClient): Db {
  const connection = { query: client.query.bind(client), release: () => {} };
  return new Kysely<Database>({
    dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {}, options: {} } as unknown as PostgresPool }),
  });
}

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
  // The EntityManager type does not carry the entity list, so getKysely() cannot infer `Database` itself.
  return em.getKysely() as unknown as Db;
}

const onClient = new WeakMap<ClientBase, Db>();

/**
 * Typed SQL on one connection borrowed from the ORM's pool (`nativePool`), for a transaction
 * that also needs the raw client (COPY). The caller owns the connection: Kysely never releases it.
 */
export function sqlOnClient(client: ClientBase): Db {
  let db = onClient.get(client);
  if (!db) {
    const borrowed: PostgresPoolClient = { query: client.query.bind(client), release: () => {} };
    db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: { connect: () => Promise.resolve(borrowed), end: () => Promise.resolve(), options: {} } }),
    });
    onClient.set(client, db);
  }
  return db;
}

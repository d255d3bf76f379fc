import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresDialect,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
  type RawBuilder,
  type PostgresPoolClient,
  type Transaction,
} from 'kysely';
import type { ClientBase, Pool, PoolClient } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The schema as Kysely sees it: table and column names as in SQL. The features define the
 * entities, so db/ cannot name them: `server/entities.ts` fills this in from them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface Database {}

/** Typed SQL on the ORM's connection; inside `em.transactional`, on its transaction. */
export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

/** The query builder for what the ORM does not express well (batches, claims, rollups, CTEs). */
export function sqlOf(em: EntityManager): Db {
  // The EntityManager type does not carry the entity list, so getKysely() cannot infer `Database` itself.
  return em.getKysely() as unknown as Db;
}

const onClient = new WeakMap<ClientBase, Db>();
const clientUnder = new WeakMap<Db, ClientBase>();

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
    clientUnder.set(db, client);
  }
  return db;
}

/**
 * Runs `work` in a transaction on `client` (which the caller owns) with a Kysely handle bound to
 * it: `begin`, then `commit`, or `rollback` if it throws (a failed rollback does not hide why).
 */
export async function transactionOnClient<T>(client: ClientBase, work: (tx: Tx) => Promise<T>): Promise<T> {
  const tx = await sqlOnClient(client).startTransaction().execute();
  clientUnder.set(tx, client);
  try {
    const result = await work(tx);
    await tx.commit().execute();
    return result;
  } catch (error) {
    await tx
      .rollback()
      .execute()
      .catch(() => {});
    throw error;
  }
}

/**
 * The one connection a handle of `sqlOnClient` (or `Transactions.run`) is bound to, for db/'s
 * helpers that need the raw client on the same transaction (COPY); undefined for a handle on a
 * pool. Features pass the handle to those helpers, never the client.
 */
export function connectionUnder(db: Db): ClientBase | undefined {
  return clientUnder.get(db);
}

/** Builds and compiles queries without a connection, for `prepared`: it cannot run them. */
export const statement = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** Names of the statements `prepared` has run, by their SQL text. */
const statementNames = new Map<string, string>();
const MAX_PREPARED = 100;

/**
 * Runs a query (built on `statement`) as a named prepared statement on one of the pool's
 * connections, for a hot path whose statement PostgreSQL would otherwise plan on every call:
 * each connection parses and plans it once. A contact's create (a CTE of two inserts) cost
 * PostgreSQL 300 µs of planning a call, a page of campaigns 70. Only for statements whose plan
 * does not depend on the values (PostgreSQL may settle on one generic plan after five calls).
 * Past MAX_PREPARED distinct texts it runs them unnamed: each connection keeps every statement
 * it prepared. On a transaction's handle (`Transactions.run`) it runs on that transaction's connection.
 */
export async function prepared<Row>(on: Pool | PoolClient | Db, query: RawBuilder<Row> | Compilable<Row>): Promise<Row[]> {
  const pool = 'selectFrom' in on ? connectionUnder(on) : on;
  if (!pool) throw new Error('a prepared statement needs a pool or a handle bound to one connection (Transactions.run)');
  const { sql: text, parameters } = 'isRawBuilder' in query ? query.compile(statement) : query.compile();
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_PREPARED) {
    name = `sendline_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  const result = await pool.query<Row & object>({ name, text, values: parameters as unknown[] });
  return result.rows;
}

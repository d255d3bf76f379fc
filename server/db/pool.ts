import pg from 'pg';
import type { Logger } from '../logger.ts';

/**
 * A plain node-postgres pool beside the ORM, for what the ORM does not do: COPY, long
 * streaming transactions, LISTEN, and the job queue.
 */
export function openPool(url: string, log: Logger, max = 20): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', (err) => log.warn({ err }, 'idle database connection failed'));
  return pool;
}

export type { Pool, PoolClient } from 'pg';

declare module 'pg' {
  // pg reads a query's results in binary format when asked (`binary`); its types know only the
  // connection-wide setting.
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the declaration it merges with has this parameter
  interface QueryConfig<I> {
    binary?: boolean;
  }
}

/**
 * For a transaction that joins a batch of a few hundred rows to a large table: guessing the size
 * of an `unnest` or of a fresh staging table, the planner may hash the whole table for every
 * batch (O(table) per batch), or, misjudging how many rows an account has while an import grows
 * it, scan all of the account's rows once per row of the batch (a bitmap scan, materialised).
 * Set first in the transaction, this makes each row an index lookup.
 */
export const PER_ROW_LOOKUPS =
  'set local enable_seqscan = off; set local enable_hashjoin = off; set local enable_mergejoin = off; set local enable_bitmapscan = off; set local enable_material = off';

import type { Compilable, RawBuilder } from 'kysely';
import type { Pool } from 'pg';
import { prepared, transactionOnClient, type Tx } from './kysely.ts';

/**
 * Opens transactions of typed SQL on the process's pool: what a feature gets instead of the
 * pool. The work sees one handle; what needs the raw connection (COPY, `append`'s large batches,
 * `set local`) goes through db/'s helpers, which take that handle. The other form is
 * `em.transactional`, only where the work goes through the ORM's unit of work: MikroORM cannot
 * adopt a connection of ours.
 */
export class Transactions {
  private readonly pool: Pool;

  constructor(pool: Pool) {
    this.pool = pool;
  }

  /**
   * Runs `work` in a transaction on one connection, at the server's default isolation, with a
   * Kysely handle bound to that connection; commits when it resolves, rolls back if it throws.
   */
  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      return await transactionOnClient(client, work);
    } finally {
      client.release();
    }
  }

  /** Runs one statement as `prepared` does, on a pooled connection in its own implicit transaction. */
  prepared<Row>(query: RawBuilder<Row> | Compilable<Row>): Promise<Row[]> {
    return prepared(this.pool, query);
  }
}

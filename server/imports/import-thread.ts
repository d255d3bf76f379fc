/**
 * An import's own thread: parsing and batching a large file allocate a great deal, so they run
 * on a small heap of their own, which is released when the import ends, and away from the
 * thread that answers the API.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Kysely, PostgresDialect } from 'kysely';
import type { Database } from '../db/kysely.ts';
import { openPool } from '../db/pool.ts';
import { Transactions } from '../db/transactions.ts';
import { createLogger } from '../logger.ts';
import type { ImportThreadData, ImportThreadMessage } from './threads.ts';
import { ImportProcessor } from './processor.ts';

const data = workerData as ImportThreadData;
const port = parentPort!;
const log = createLogger(data.logLevel);
// A thread is an isolate of its own: it cannot use the sockets of the main thread's pool (the
// ORM's), so the import opens a small pool for itself and ends it with the import. The file's
// reader, one connection per writer, and one for the import's own record. Typed SQL goes through
// Kysely over it; the batches' transactions (with their COPY) each take one of its connections.
const pool = openPool(data.databaseUrl, log, data.limits.writers + 2);
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
const abort = new AbortController();
port.on('message', (message: 'abort') => {
  if (message === 'abort') abort.abort();
});
const send = (message: ImportThreadMessage) => port.postMessage(message);
try {
  const outcome = await new ImportProcessor({ transactions: new Transactions(pool), db }, data.limits, log).process(data.importId, {
    signal: abort.signal,
    touch: (counts) => send({ kind: 'touch', counts }),
  });
  send({ kind: 'outcome', outcome });
} finally {
  // Ends the pool too, once Kysely has used it.
  await db.destroy();
  if (!pool.ending) await pool.end();
  port.close();
}

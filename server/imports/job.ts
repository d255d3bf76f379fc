import type { Metrics } from '../metrics/metrics.ts';
import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { finishImport, type ImportOutcome } from './processor.ts';
import { IMPORT_JOB } from '../jobs/payloads.ts';
import { importStore, type BatchCounts } from './store.ts';
import { runImportThread, type ImportThreadData } from './threads.ts';

/**
 * An advisory lock per import keeps a second runner of the same import away
 * (docs/background-work.md). It is held by a session of the ORM's pool for as long as the import runs,
 * so it ends exactly when its holder does: a crashed process's session takes it along.
 */
async function withImportLock(db: Db, id: string, work: () => Promise<ImportOutcome>): Promise<ImportOutcome | 'taken'> {
  return db.connection().execute(async (session) => {
    const {
      rows: [{ locked }],
    } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtext(${id})) as locked`.execute(session);
    if (!locked) return 'taken';
    try {
      return await work();
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${id}))`.execute(session);
    }
  });
}

/**
 * Runs the import in its thread. One that fails (outgrowing the thread's heap, or any error its
 * thread did not end it with) ends as failed instead of staying `running`: resumed, it would
 * fail again. It keeps the batches it committed.
 */
async function importInThread(
  deps: ImportWorkerDeps,
  thread: ImportThreadData,
  control: { signal: AbortSignal; touch: (counts: BatchCounts) => void },
): Promise<ImportOutcome> {
  try {
    return await runImportThread(thread, control);
  } catch (error) {
    const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    deps.log.error({ err: error, importId: thread.importId }, outOfMemory ? 'an import ran out of memory (IMPORT_THREAD_HEAP_MB)' : 'an import failed');
    const detail = outOfMemory ? 'The import ran out of memory; it has been logged.' : 'The import stopped on an unexpected error; it has been logged.';
    const record = await importStore.get(deps.db, null, thread.importId);
    if (record)
      await deps.transactions.run((tx) =>
        finishImport(tx, record.account_id, thread.importId, { status: 'failed', code: 'internal_error', detail, row: null }),
      );
    return 'finished';
  }
}

export interface ImportWorkerDeps {
  queue: Queue;
  db: Db;
  /** For the transaction that ends a failed import with its `import.completed` event. */
  transactions: Transactions;
  log: Logger;
  metrics: Metrics;
  /** What the import threads connect to and run with. */
  thread: { databaseUrl: string; limits: Config['imports']; logLevel: Config['logLevel'] };
}

/** Registers the import job on this worker and queues imports a crash left unfinished. */
export async function startImportWorker(deps: ImportWorkerDeps, signal: AbortSignal): Promise<void> {
  const { queue, db, log } = deps;
  queue.define(
    IMPORT_JOB,
    async ({ importId }, job) => {
      const touch = (counts: BatchCounts) => {
        for (const outcome of ['created', 'updated', 'skipped', 'failed'] as const)
          if (counts[outcome]) deps.metrics.importRows.inc({ outcome }, counts[outcome]);
        void job.touch().catch((err: unknown) => log.warn({ err, importId }, 'renewing the import job lock failed'));
      };
      const thread = { importId, ...deps.thread };
      const outcome = await withImportLock(db, importId, () => importInThread(deps, thread, { signal, touch }));
      // Shutting down: the checkpoints are committed; any live worker picks up from there.
      if (outcome === 'interrupted') await queue.enqueue(IMPORT_JOB, { importId });
    },
    { lockSeconds: deps.thread.limits.lockSeconds, concurrency: 2 },
  );
  // After a restart: queue every import left unfinished (its runner takes over or sees it is taken).
  const unfinished = await importStore.unfinished(db);
  for (const importId of unfinished) await queue.enqueue(IMPORT_JOB, { importId });
  if (unfinished.length) log.info({ imports: unfinished.length }, 'resuming unfinished imports');
}

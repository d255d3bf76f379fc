import { inTransaction, type Pool } from '../db/pool.ts';
import type { Runtime } from '../services.ts';
import { finishImport, type ImportOutcome } from './processor.ts';
import { IMPORT_JOB } from './service.ts';
import { runImportThread, type ImportThreadData } from './threads.ts';

/** An advisory lock per import keeps a second runner of the same import away. */
async function withImportLock(pool: Pool, id: string, work: () => Promise<ImportOutcome>): Promise<ImportOutcome | 'taken'> {
  const lock = await pool.connect();
  try {
    const { rows: [{ locked }] } = await lock.query('select pg_try_advisory_lock(hashtext($1)) as locked', [id]);
    if (!locked) return 'taken';
    try {
      return await work();
    } finally {
      await lock.query('select pg_advisory_unlock(hashtext($1))', [id]);
    }
  } finally {
    lock.release();
  }
}

/** Runs the import in its thread; one that outgrows the thread's heap fails instead of resuming. */
async function importInThread(runtime: Runtime, thread: ImportThreadData, control: { signal: AbortSignal; touch: () => void }): Promise<ImportOutcome> {
  try {
    return await runImportThread(thread, control);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    // Resumed, it would run out again: it ends here, keeping the batches it committed.
    runtime.log.error({ err: error, importId: thread.importId }, 'an import ran out of memory (IMPORT_THREAD_HEAP_MB)');
    const failure = { code: 'internal_error', detail: 'The import ran out of memory; it has been logged.', row: null };
    await inTransaction(runtime.pool, (client) => finishImport(client, thread.importId, { status: 'failed', ...failure }));
    return 'finished';
  }
}

/** Registers the import job on this worker and queues imports a crash left unfinished. */
export async function startImportWorker(runtime: Runtime, signal: AbortSignal): Promise<void> {
  const { pool, queue, config, log } = runtime;
  queue.define<{ importId: string }>(
    IMPORT_JOB,
    async ({ importId }, job) => {
      const touch = () => void job.touch().catch((err: unknown) => log.warn({ err, importId }, 'renewing the import job lock failed'));
      const thread = { importId, databaseUrl: runtime.databaseUrl, limits: config.imports, logLevel: config.logLevel };
      const outcome = await withImportLock(pool, importId, () => importInThread(runtime, thread, { signal, touch }));
      // Shutting down: the checkpoints are committed; any live worker picks up from there.
      if (outcome === 'interrupted') await queue.enqueue(IMPORT_JOB, { importId });
    },
    { lockSeconds: config.imports.lockSeconds, concurrency: 2 },
  );
  // After a restart: queue every import left unfinished (its runner takes over or sees it is taken).
  const { rows } = await pool.query("select id from contact_imports where status in ('queued', 'running')");
  for (const { id } of rows) await queue.enqueue(IMPORT_JOB, { importId: id });
  if (rows.length) log.info({ imports: rows.length }, 'resuming unfinished imports');
}

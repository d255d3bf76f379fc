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

/**
 * Runs the import in its thread. One that fails (outgrowing the thread's heap, or any error its
 * thread did not end it with) ends as failed instead of staying `running`: resumed, it would
 * fail again. It keeps the batches it committed.
 */
async function importInThread(runtime: Runtime, thread: ImportThreadData, control: { signal: AbortSignal; touch: () => void }): Promise<ImportOutcome> {
  try {
    return await runImportThread(thread, control);
  } catch (error) {
    const outOfMemory = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
    runtime.log.error({ err: error, importId: thread.importId }, outOfMemory ? 'an import ran out of memory (IMPORT_THREAD_HEAP_MB)' : 'an import failed');
    const detail = outOfMemory ? 'The import ran out of memory; it has been logged.' : 'The import stopped on an unexpected error; it has been logged.';
    await inTransaction(runtime.pool, (client) => finishImport(client, thread.importId, { status: 'failed', code: 'internal_error', detail, row: null }));
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

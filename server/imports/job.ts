import type { Runtime } from '../services.ts';
import { IMPORT_JOB, ImportService } from './service.ts';

/** Registers the import job on this worker and queues imports a crash left unfinished. */
export async function startImportWorker(runtime: Runtime, signal: AbortSignal): Promise<void> {
  const service = new ImportService(runtime.pool, runtime.queue, runtime.config.imports, runtime.log);
  runtime.queue.define<{ importId: string }>(
    IMPORT_JOB,
    (data, job) => service.run(data.importId, { signal, touch: () => job.touch() }),
    { lockSeconds: runtime.config.imports.lockSeconds, concurrency: 2 },
  );
  const resumed = await service.resumeUnfinished();
  if (resumed) runtime.log.info({ imports: resumed }, 'resuming unfinished imports');
}

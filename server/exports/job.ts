import { sqlOf } from '../db/kysely.ts';
import { createServices, type Runtime } from '../services.ts';
import { EXPORT_JOB } from './service.ts';
import { exportsStore } from './store.ts';

const PRUNE_EVERY_MS = 5 * 60_000;

/** Registers the export job on this worker, queues exports a crash left unfinished, and prunes expired ones. */
export async function startExportWorker(runtime: Runtime): Promise<void> {
  const { orm, queue, log } = runtime;
  queue.define<{ exportId: string }>(
    EXPORT_JOB,
    async ({ exportId }) => {
      await createServices(runtime).exports.run(exportId);
    },
    { lockSeconds: 60, concurrency: 1, leased: true },
  );
  queue.every('contact-exports.prune', PRUNE_EVERY_MS, () => exportsStore.prune(sqlOf(orm.em.fork())));
  const unfinished = await exportsStore.unfinished(sqlOf(orm.em.fork()));
  for (const exportId of unfinished) await queue.enqueue(EXPORT_JOB, { exportId });
  if (unfinished.length) log.info({ exports: unfinished.length }, 'resuming unfinished exports');
}

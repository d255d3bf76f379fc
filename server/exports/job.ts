import type { Db } from '../db/kysely.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { EXPORT_JOB } from '../jobs/payloads.ts';
import { exportsStore } from './store.ts';

const PRUNE_EVERY_MS = 5 * 60_000;

/** Registers the export job on this worker, queues exports a crash left unfinished, and prunes expired ones. */
export async function startExportWorker(deps: { queue: Queue; db: Db; log: Logger; run: (exportId: string) => Promise<void> }): Promise<void> {
  const { queue, db, log, run } = deps;
  queue.define(EXPORT_JOB, ({ exportId }) => run(exportId), { lockSeconds: 60, concurrency: 1, leased: true });
  queue.every('contact-exports.prune', PRUNE_EVERY_MS, () => exportsStore.prune(db));
  const unfinished = await exportsStore.unfinished(db);
  for (const exportId of unfinished) await queue.enqueue(EXPORT_JOB, { exportId });
  if (unfinished.length) log.info({ exports: unfinished.length }, 'resuming unfinished exports');
}

import { sqlOf } from '../db/kysely.ts';
import type { Runtime } from '../services.ts';
import { emails } from './store.ts';

export const PRUNE_CONTENTS_JOB = 'email-contents.prune';
const PRUNE_EVERY_MS = 5 * 60_000;
/** Requests pruned per statement: each statement is short, whatever the backlog. */
const PRUNE_BATCH = 500;

/** Prunes requests' contents past their retention, a bounded batch per statement until none is left. */
export async function pruneEmailContents(runtime: Runtime): Promise<number> {
  const db = sqlOf(runtime.orm.em.fork());
  let pruned = 0;
  for (;;) {
    const n = await emails.pruneContents(db, runtime.config.emailContentRetentionDays, PRUNE_BATCH);
    pruned += n;
    if (n < PRUNE_BATCH) return pruned;
  }
}

/** Registers the periodic pruning of transactional contents on this worker. */
export function startEmailContentPruning(runtime: Runtime): void {
  runtime.queue.every(PRUNE_CONTENTS_JOB, PRUNE_EVERY_MS, async () => {
    const pruned = await pruneEmailContents(runtime);
    if (pruned) runtime.log.info({ pruned }, 'pruned transactional email contents');
  });
}

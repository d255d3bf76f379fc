import type { Db } from '../db/kysely.ts';
import type { Queue } from '../jobs/queue.ts';
import type { Logger } from '../logger.ts';
import { emails } from './store.ts';

export const PRUNE_CONTENTS_JOB = 'email-contents.prune';
const PRUNE_EVERY_MS = 5 * 60_000;
/** Requests pruned per statement: each statement is short, whatever the backlog. */
const PRUNE_BATCH = 500;

/** Prunes requests' contents past their retention, a bounded batch per statement until none is left. */
export async function pruneEmailContents(db: Db, retentionDays: number): Promise<number> {
  let pruned = 0;
  for (;;) {
    const n = await emails.pruneContents(db, retentionDays, PRUNE_BATCH);
    pruned += n;
    if (n < PRUNE_BATCH) return pruned;
  }
}

/** Registers the periodic pruning of transactional contents on this worker. */
export function startEmailContentPruning(deps: { queue: Queue; db: Db; log: Logger; retentionDays: number }): void {
  deps.queue.every(PRUNE_CONTENTS_JOB, PRUNE_EVERY_MS, async () => {
    const pruned = await pruneEmailContents(deps.db, deps.retentionDays);
    if (pruned) deps.log.info({ pruned }, 'pruned transactional email contents');
  });
}

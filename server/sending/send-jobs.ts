import type { Queue } from '../jobs/queue.ts';
import { SEND_JOB } from '../jobs/payloads.ts';

/**
 * Makes sure the campaign has its `count` send jobs, due now: one per slot, so asking again (a
 * resume, the tick after a restart) adds none.
 */
export async function sendJobs(queue: Queue, campaignId: string, count: number): Promise<void> {
  for (let slot = 0; slot < count; slot++) await queue.ensure(SEND_JOB, { campaignId, slot }, ['campaignId', 'slot']);
}

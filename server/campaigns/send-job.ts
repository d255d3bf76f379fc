import type { Metrics } from '../metrics/metrics.ts';
import type { Config } from '../config.ts';
import type { Orm } from '../db/orm.ts';
import type { Transactions } from '../db/transactions.ts';
import type { TemplateThread } from '../rendering/template-thread.ts';
import type { OutcomeRecords } from '../sending/records.ts';
import type { SendThreads } from '../sending/send-threads.ts';
import type { SendingIdentities } from '../sending/identity.ts';
import type { Logger } from '../logger.ts';
import { sqlOf } from '../db/kysely.ts';
import { campaigns } from './store.ts';
import { SEND_JOB } from '../jobs/payloads.ts';
import { sendJobs } from '../sending/send-jobs.ts';
import { runAgain, type Queue } from '../jobs/queue.ts';
import { Problem } from '../contract/problem.ts';
import { CampaignSender } from './sender.ts';
import { chooseWinner } from './winner.ts';
import type { EventListener } from '../events/listener.ts';

/** Starts due scheduled campaigns and keeps sending ones staffed; one process at a time runs it. */
export const CAMPAIGN_TICK_JOB = 'campaigns.tick';
const TICK_EVERY_MS = 1000;
/** How long a dead process holds a send job before another takes it over (live ones renew it). */
const SEND_JOB_LOCK_SECONDS = 30;

export interface CampaignSendingDeps {
  orm: Orm;
  transactions: Transactions;
  queue: Queue;
  config: Pick<Config, 'sending'>;
  templates: TemplateThread;
  threads: SendThreads;
  records: OutcomeRecords;
  /** Each campaign's From address's sending identity: its DKIM key, return path and link host. */
  identities: SendingIdentities;
  metrics: Metrics;
  log: Logger;
  /** Starts a scheduled campaign through its state machine (a 409 when another start came first). */
  startCampaign: (accountId: string, campaignId: string) => Promise<unknown>;
}

/**
 * Registers the send job and the campaigns' tick on this worker; the messages go out through
 * `deps.threads`. The tick, every second, starts due scheduled campaigns (so within a second or
 * two of their time, after a restart too), and makes sure every `sending` campaign has its send
 * jobs: after a restart nothing is queued again that is already there. `halts` tells of every
 * campaign paused or cancelled, in any process.
 */
export function startCampaignSending(deps: CampaignSendingDeps, signal: AbortSignal, halts: Pick<EventListener, 'onCampaignHalted'>): void {
  const { orm, transactions, queue, config, threads, log } = deps;
  const sender = new CampaignSender(orm, transactions, threads, deps.templates, config.sending, log, deps.records, deps.identities, deps.metrics);
  halts.onCampaignHalted((campaignId) => sender.halt(campaignId));
  queue.define(
    SEND_JOB,
    async (data, job) => {
      // Stopped with the process: the job runs again at once in the next process free.
      if ((await sender.run(data.campaignId, signal)) === 'interrupted') runAgain(job);
    },
    {
      lockSeconds: Math.min(config.sending.leaseSeconds, SEND_JOB_LOCK_SECONDS),
      concurrency: 4,
      leased: true,
      // A campaign's send runs for as long as it sends: each batch is a trace of its own.
      traced: false,
      // A thread loads its modules in about 200 ms: started as the `send` request begins rather
      // than when its job is picked up, that load overlaps the request and the pickup.
      onComing: () => threads.warm(),
    },
  );
  queue.every(CAMPAIGN_TICK_JOB, TICK_EVERY_MS, async () => {
    const db = sqlOf(orm.em.fork());
    for (const campaign of await campaigns.dueScheduled(db, 20)) {
      // The state machine refuses a second start (409): another process or request came first.
      await deps.startCampaign(campaign.account_id, campaign.id).catch((err: unknown) => {
        if (!(err instanceof Problem && err.status === 409)) log.error({ err, campaignId: campaign.id }, 'starting a scheduled campaign failed');
      });
    }
    for (const { id, account_id: accountId } of await campaigns.testsDue(db, 20)) {
      // Another process's tick may have chosen first (409): it staffs the rest itself.
      const decided = await chooseWinner(orm.em.fork(), id, accountId, null).catch((err: unknown) => {
        if (!(err instanceof Problem && err.status === 409)) log.error({ err, campaignId: id }, 'choosing an A/B test winner failed');
      });
      if (decided) log.info({ campaignId: id, winner: decided.winner }, 'an A/B test chose its winner');
    }
    for (const id of await campaigns.sendingIds(db)) await sendJobs(queue, id, config.sending.workersPerCampaign);
  });
}

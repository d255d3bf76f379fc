import { createServices, type Runtime } from '../services.ts';
import { SEND_JOB } from '../campaigns/service.ts';
import { CampaignSender } from './worker.ts';
import { SendThreads } from './send-threads.ts';

const SCHEDULER_EVERY_MS = 1000;

export interface SendingWorker {
  stopScheduling(): void;
  /** After the send jobs have stopped: ends the sending threads. */
  close(): Promise<void>;
}

/**
 * Registers the send job on this worker, wakes campaigns that were sending when the last
 * process stopped, and starts due scheduled campaigns (checked every second, so within 5 s of
 * their time, after a restart too).
 */
export async function startSendingWorker(runtime: Runtime, smtpUrl: string, signal: AbortSignal): Promise<SendingWorker> {
  const { pool, queue, config, log } = runtime;
  const threads = new SendThreads({ smtpUrl, sending: config.sending, publicUrl: config.publicUrl, secretKeys: config.secretKeys }, config.sending.threads, log);
  const sender = new CampaignSender(pool, threads, runtime.templates, config.sending, log);
  queue.define<{ campaignId: string }>(SEND_JOB, (data, job) => sender.run(data.campaignId, signal, () => job.touch()), {
    lockSeconds: config.sending.leaseSeconds,
    concurrency: 4,
  });
  const { rows } = await pool.query("select id from campaigns where status = 'sending'");
  for (const { id } of rows) for (let i = 0; i < config.sending.workersPerCampaign; i++) await queue.enqueue(SEND_JOB, { campaignId: id });
  if (rows.length) log.info({ campaigns: rows.length }, 'resuming campaigns that were sending');

  let running = false;
  const timer = setInterval(async () => {
    if (running || signal.aborted) return;
    running = true;
    try {
      const { rows: due } = await pool.query("select id, account_id from campaigns where status = 'scheduled' and scheduled_at <= now() order by scheduled_at limit 20");
      for (const campaign of due) {
        // Another process may start it first; the state machine then refuses this one (409).
        await createServices(runtime).campaigns.start(campaign.account_id, campaign.id).catch((err) => {
          if (err?.status !== 409) log.error({ err, campaignId: campaign.id }, 'starting a scheduled campaign failed');
        });
      }
    } catch (err) {
      log.error({ err }, 'the scheduler failed');
    } finally {
      running = false;
    }
  }, SCHEDULER_EVERY_MS);
  return { stopScheduling: () => clearInterval(timer), close: () => threads.close() };
}

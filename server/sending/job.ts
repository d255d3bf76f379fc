import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { SendThreads } from './send-threads.ts';

export interface SendingWorker {
  /** After the send jobs have stopped: ends the sending threads. */
  close(): Promise<void>;
}

/** A sender that goes through the sending threads (campaigns', transactional email's): done once `stopped` resolves. */
export interface ThreadedSender {
  stopped(): Promise<void>;
}

/**
 * Starts the sending threads, to the relay at `smtpUrl`, and the senders that use them: the
 * composition root hands in how each starts, so the threads know no campaign or email.
 */
export function startSendingWorker(
  config: Pick<Config, 'sending' | 'publicUrl' | 'secretKeys'>,
  smtpUrl: string,
  databaseUrl: string,
  log: Logger,
  startSenders: (threads: SendThreads) => ThreadedSender[],
): SendingWorker {
  const threads = new SendThreads(
    { smtpUrl, databaseUrl, sending: config.sending, publicUrl: config.publicUrl, secretKeys: config.secretKeys },
    config.sending.threads,
    log,
  );
  const senders = startSenders(threads);
  return {
    close: async () => {
      for (const sender of senders) await sender.stopped();
      await threads.close();
    },
  };
}

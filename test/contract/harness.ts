/** One live Sendline for the contract scenarios, with a real SMTP sink and a real webhook receiver. */
import type { Sendline } from '../../server/start.ts';
import { startTestServer } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';

export interface ContractEnvironment {
  sendline: Sendline;
  baseUrl: string;
  webhookUrl: string;
  receiver: WebhookReceiver;
  stop(): Promise<void>;
}

export async function startContractEnvironment(): Promise<ContractEnvironment> {
  const sink = await new SmtpSink().start();
  const receiver = await new WebhookReceiver().start();
  const sendline = await startTestServer({ SMTP_URL: sink.url, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return {
    sendline,
    baseUrl: `${sendline.url}/api/v1`,
    webhookUrl: receiver.url,
    receiver,
    async stop() {
      await sendline.stop();
      await sink.stop();
      await receiver.stop();
    },
  };
}

/** One live Sendline for the contract scenarios, with a real SMTP sink and a real webhook receiver. */
import { randomUUID } from 'node:crypto';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { newAccount, startTestServer } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';

export interface ContractEnvironment {
  sendline: Sendline;
  baseUrl: string;
  webhookUrl: string;
  receiver: WebhookReceiver;
  /** What a README's quick-start reads: a new account to log in with and one real signed delivery. */
  quickstart(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

export async function startContractEnvironment(): Promise<ContractEnvironment> {
  const sink = await new SmtpSink().start();
  const receiver = await new WebhookReceiver().start();
  // A database of its own: servers of other tests, configured to refuse webhooks on loopback,
  // would otherwise claim this one's deliveries, as processes sharing a database do.
  const sendline = await startTestServer({
    DATABASE_URL: await freshDatabase(`contract_${randomUUID().slice(0, 8)}`),
    SMTP_URL: sink.url,
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // A closed port: domain lookups fail at once (lookup_failed) rather than waiting on the machine's DNS.
    DNS_SERVERS: '127.0.0.1:9',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  const quickstart = async () => {
    const owner = await newAccount(sendline.url, 'quickstart');
    const { body: webhook } = await owner.api('POST', '/api/webhooks', { body: { url: receiver.url, events: ['webhook.test'] } });
    await owner.api('POST', `/api/webhooks/${webhook.id}/test`);
    const delivery = receiver.received.at(-1)!;
    return {
      SENDLINE_EMAIL: owner.email,
      SENDLINE_PASSWORD: owner.password,
      SENDLINE_WEBHOOK_SECRET: webhook.secret,
      SENDLINE_WEBHOOK_HEADERS: JSON.stringify(
        Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((h) => [h, delivery.headers[h]])),
      ),
      SENDLINE_WEBHOOK_BODY: delivery.body,
    };
  };
  return {
    sendline,
    quickstart,
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

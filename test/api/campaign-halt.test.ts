import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

// Batches far larger than the relay's connections: a pause must not wait for the batch in flight.
const POOL_SIZE = 2;
let sendline: Sendline;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await new SmtpSink().start();
  sink.delayMs = 20;
  sendline = await startTestServer({ SMTP_URL: sink.url, SEND_BATCH_SIZE: '200', SMTP_POOL_SIZE: String(POOL_SIZE), SEND_THREADS: '1' });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sendingCampaign(account: TestAccount, label: string, count: number) {
  const emails = Array.from({ length: count }, (_, i) => `${label}${i}@halt.example`);
  await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
  const { body: campaign } = await account.api('POST', '/api/campaigns', {
    body: { name: label, subject: 'News', from_email: 'news@shop.example', content: '<p>Hi</p>' },
  });
  await account.api('POST', `/api/campaigns/${campaign.id}/send`);
  const reached = () => emails.filter((email) => sink.to(email).length).length;
  await waitFor(() => reached() >= 10);
  return { id: campaign.id as string, emails, reached };
}

describe('stopping a campaign mid-batch', () => {
  it('hands no more messages to the relay once paused, and a resume sends each of the rest once', async () => {
    const account = await newAccount(sendline.url, 'halt');
    const campaign = await sendingCampaign(account, 'pause', 150);
    const paused = await account.api('POST', `/api/campaigns/${campaign.id}/pause`);
    expect(paused.body.status).toBe('paused');
    const atPause = campaign.reached();
    await sleep(1000);
    // Only messages already on one of the relay's connections finish.
    expect(campaign.reached() - atPause).toBeLessThanOrEqual(POOL_SIZE);
    expect(campaign.reached()).toBeLessThan(150);

    expect((await account.api('POST', `/api/campaigns/${campaign.id}/resume`)).body.status).toBe('sending');
    const done = await waitFor(async () => {
      const res = await account.api('GET', `/api/campaigns/${campaign.id}`);
      return res.body.status === 'completed' && res.body;
    }, 60_000);
    expect(done.stats).toMatchObject({ recipients: 150, sent: 150 });
    for (const email of campaign.emails) expect(sink.to(email)).toHaveLength(1);
  });

  it('cancels the rest of the batch in flight', async () => {
    const account = await newAccount(sendline.url, 'halt');
    const campaign = await sendingCampaign(account, 'cancel', 150);
    expect((await account.api('POST', `/api/campaigns/${campaign.id}/cancel`)).body.status).toBe('cancelled');
    const atCancel = campaign.reached();
    await sleep(1000);
    expect(campaign.reached() - atCancel).toBeLessThanOrEqual(POOL_SIZE);
    const listed = await account.api('GET', `/api/campaigns/${campaign.id}/messages?limit=500`);
    expect(listed.body.data.filter((m: { status: string }) => ['queued', 'sending', 'deferred'].includes(m.status))).toEqual([]);
    expect((await account.api('GET', `/api/campaigns/${campaign.id}`)).body.stats.sent).toBe(campaign.reached());
  });
});

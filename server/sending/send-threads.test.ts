import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignRow } from '../campaigns/entities.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { SmtpSink } from '../../test/smtp-sink.ts';
import { CAMPAIGNS_PER_THREAD, SendThreads } from './send-threads.ts';
import { legacyKey } from '../secrets/key-ring.ts';

const sending: Config['sending'] = {
  smtpUrl: null,
  poolSize: 4,
  threads: 2,
  ratePerSecond: 0,
  batchSize: 100,
  workersPerCampaign: 1,
  retrySeconds: 60,
  maxAttempts: 5,
  leaseSeconds: 300,
  failureSeconds: 300,
  dkim: null,
};

const campaign = (id: string, subject: string) =>
  ({
    id,
    name: id,
    subject,
    fromEmail: 'news@shop.example',
    fromName: null,
    replyTo: null,
    content: '<p>Hi {{ first_name }}</p>',
    textContent: null,
    preheader: null,
    trackOpens: true,
    trackClicks: true,
  }) as CampaignRow;

const recipient = (n: number, email = `reader${n}@inbox.example`) => ({
  messageId: `msg_${n}`,
  email,
  firstName: `Reader${n}`,
  lastName: null,
  tags: [],
  attributes: {},
});

describe('sending threads', () => {
  const sink = new SmtpSink();
  let threads: SendThreads;

  beforeAll(async () => {
    await sink.start();
    threads = new SendThreads(
      { smtpUrl: sink.url, sending, publicUrl: 'http://sendline.test', secretKeys: [legacyKey('a-test-secret-that-is-long-enough-0123456789')] },
      2,
      createLogger('silent'),
    );
  });
  afterAll(async () => {
    await threads.close();
    await sink.stop();
  });

  const sendOne = async (c: ReturnType<typeof campaign>, r: ReturnType<typeof recipient>) => (await threads.sendAll(c, [r]))[0];

  it('never opens more connections in all than the pool has, however many threads are asked for', async () => {
    const relay = await new SmtpSink().start();
    relay.delayMs = 20;
    const crowded = new SendThreads(
      {
        smtpUrl: relay.url,
        sending: { ...sending, poolSize: 3 },
        publicUrl: 'http://sendline.test',
        secretKeys: [legacyKey('a-test-secret-that-is-long-enough-0123456789')],
      },
      4,
      createLogger('silent'),
    );
    try {
      const outcomes = await crowded.sendAll(
        campaign('cmp_pool', 'Hello'),
        Array.from({ length: 60 }, (_, i) => recipient(i)),
      );
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
      expect(relay.peakConnections).toBe(3);
    } finally {
      await crowded.close();
      await relay.stop();
    }
  });

  it('renders and sends in the threads, and reports what the relay answered', async () => {
    sink.rejectHard.add('gone@inbox.example');
    const outcomes = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => sendOne(campaign('cmp_a', 'Hello {{ first_name }}'), recipient(i))),
      sendOne(campaign('cmp_a', 'Hello {{ first_name }}'), recipient(99, 'gone@inbox.example')),
    ]);
    expect(outcomes.slice(0, 20).every((o) => o.kind === 'accepted')).toBe(true);
    expect(outcomes[20]).toMatchObject({ kind: 'rejected', code: 550 });
    expect(sink.to('reader7@inbox.example')[0].mail.subject).toBe('Hello Reader7');
  });

  it('hands a thread a campaign again once it has dropped it from its cache', async () => {
    const many = Array.from({ length: CAMPAIGNS_PER_THREAD + 5 }, (_, i) => campaign(`cmp_${i}`, `Campaign ${i}`));
    for (const [i, c] of many.entries()) expect(await sendOne(c, recipient(1000 + i))).toMatchObject({ kind: 'accepted' });
    // The first campaigns fell out of the threads' caches: they are handed over again, not lost.
    expect(await sendOne(many[0], recipient(2000))).toMatchObject({ kind: 'accepted' });
    expect(sink.to('reader2000@inbox.example')[0].mail.subject).toBe('Campaign 0');
  });

  it('answers with a transport error once closed, so the messages go back to the queue', async () => {
    await threads.close();
    expect(await sendOne(campaign('cmp_a', 'Hi'), recipient(3000))).toMatchObject({ kind: 'transport_error' });
  });
});

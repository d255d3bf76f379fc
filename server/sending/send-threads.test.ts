import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CampaignRow } from '../campaigns/entities.ts';
import type { Config } from '../config.ts';
import { createLogger } from '../logger.ts';
import { SmtpSink } from '../../test/smtp-sink.ts';
import { CAMPAIGNS_PER_THREAD, SendThreads } from './send-threads.ts';
import { legacyKey } from '../secrets/key-ring.ts';

const sending: Config['sending'] = {
  smtpUrl: null,
  relays: null,
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

  const sendOne = async (c: ReturnType<typeof campaign>, r: ReturnType<typeof recipient>) => (await threads.sendAll(c, [r], null))[0];

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
        null,
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

describe('sending threads started on demand', () => {
  // Long enough that a loaded machine still has both threads running when a two-recipient send returns.
  const IDLE_MS = 1000;
  const secretKeys = [legacyKey('a-test-secret-that-is-long-enough-0123456789')];
  const sink = new SmtpSink();
  const make = () => new SendThreads({ smtpUrl: sink.url, sending, publicUrl: 'http://sendline.test', secretKeys }, 2, createLogger('silent'), IDLE_MS);
  const until = async (check: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!check()) {
      if (Date.now() > end) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(() => sink.start());
  afterAll(() => sink.stop());

  it('starts no thread before the first send, and ends them after an idle period', async () => {
    const threads = make();
    try {
      expect(threads.running).toBe(0);
      const outcomes = await threads.sendAll(campaign('cmp_idle', 'Hello'), [recipient(1), recipient(2)], null);
      expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
      expect(threads.running).toBe(2);
      // Ended, and their SMTP connections with them.
      await until(() => threads.running === 0 && sink.openConnections === 0);
    } finally {
      await threads.close();
    }
  });

  it('sends after the threads ended for idleness, with the campaign handed over again', async () => {
    const threads = make();
    try {
      expect(await threads.sendAll(campaign('cmp_again', 'First {{ first_name }}'), [recipient(10)], null)).toMatchObject([{ kind: 'accepted' }]);
      await until(() => threads.running === 0);
      expect(await threads.sendAll(campaign('cmp_again', 'First {{ first_name }}'), [recipient(11)], null)).toMatchObject([{ kind: 'accepted' }]);
      expect(sink.to('reader11@inbox.example')[0].mail.subject).toBe('First Reader11');
    } finally {
      await threads.close();
    }
  });

  it('loses no message sent while threads are ending, and warm keeps idle threads for a campaign', async () => {
    const threads = make();
    try {
      // Sends spread around the idle limit: some meet a thread that is being ended.
      const sent = [];
      for (let i = 0; i < 12; i++) {
        sent.push(threads.sendAll(campaign('cmp_edge', 'Edge'), [recipient(100 + i)], null));
        await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2 + (i % 3) * 60));
      }
      expect((await Promise.all(sent)).flat().every((o) => o.kind === 'accepted')).toBe(true);
      threads.warm();
      expect(threads.running).toBe(2);
    } finally {
      await threads.close();
    }
    expect(threads.running).toBe(0);
  });

  it('ends every thread on close, idle or busy', async () => {
    const idle = make();
    await idle.sendAll(campaign('cmp_close', 'Bye'), [recipient(200)], null);
    await idle.close();
    expect(idle.running).toBe(0);
    const busy = make();
    const inFlight = busy.sendAll(
      campaign('cmp_close', 'Bye'),
      Array.from({ length: 40 }, (_, i) => recipient(300 + i)),
      null,
    );
    await busy.close();
    // Whatever did not go out is answered as a transport error (back to the queue), never left hanging.
    expect((await inFlight).every((o) => o.kind === 'accepted' || o.kind === 'transport_error')).toBe(true);
    await until(() => sink.openConnections === 0);
  });
});

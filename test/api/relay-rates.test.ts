import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, spawnTestServer, uniqueEmail, waitFor } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';

const RATE = 5;
const MESSAGES = 40;

describe("a relay's rate_per_second", () => {
  const sink = new SmtpSink();
  const running: ServerProcess[] = [];

  beforeAll(() => sink.start());
  afterAll(async () => {
    for (const server of running.splice(0)) {
      server.proc.kill('SIGKILL');
      await server.exited;
    }
    await sink.stop();
  });

  it('holds with two server processes sending one campaign at once', async () => {
    const env = {
      SMTP_RELAYS: JSON.stringify([{ name: 'limited', url: sink.url, rate_per_second: RATE }]),
      // Both processes take the campaign's send jobs, each with threads of its own.
      SEND_WORKERS_PER_CAMPAIGN: '4',
      SEND_BATCH_SIZE: '4',
      SEND_THREADS: '2',
    };
    running.push(...(await Promise.all([spawnTestServer(env), spawnTestServer(env)])));
    const account = await newAccount(running[0].url, 'rates');
    const emails = Array.from({ length: MESSAGES }, (_, i) => uniqueEmail(`rate${i}`));
    await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
    const { body: campaign } = await account.api('POST', '/api/campaigns', {
      body: { name: 'paced', subject: 'Paced', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    const sentAt = Date.now();
    await account.api('POST', `/api/campaigns/${campaign.id}/send`);
    await waitFor(() => sink.received.length >= MESSAGES, 60_000);

    const times = sink.received.map((r) => r.at).sort((a, b) => a - b);
    // Observed over the whole window: n messages at RATE a second take n / RATE seconds of the
    // clock, so the last arrives more than n / RATE - 2 seconds after the send (with one limit
    // per process instead, two processes sent these 40 within 2.3 s). From the send, not from
    // the first arrival: on a loaded machine the first message, which starts the sending
    // threads' connections, may reach the sink a second or two after its grant.
    const seconds = (times.at(-1)! - sentAt) / 1000;
    expect(seconds).toBeGreaterThan(MESSAGES / RATE - 2);
    // And no four seconds of the clock carry more than five seconds' worth: messages granted in
    // those four seconds, and those granted in the second before that reached the sink late (on
    // a loaded machine a message takes up to a second from its grant to the sink, so a pair of
    // seconds alone may show three seconds' grants). Two limits, one per process, would put all
    // 40 in such a window.
    const perSecond = new Map<number, number>();
    for (const at of times) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
    const windows = [...perSecond.keys()].map((second) => [0, 1, 2, 3].reduce((sum, k) => sum + (perSecond.get(second + k) ?? 0), 0));
    expect(Math.max(...windows)).toBeLessThanOrEqual(5 * RATE);
  });
});

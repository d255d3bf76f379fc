import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../config.ts';
import { SmtpSink } from '../../test/smtp-sink.ts';
import { ConnectionSlots } from './relay-limits.ts';
import { RelayTransport } from './relay-transport.ts';

const sending: Config['sending'] = {
  smtpUrl: null,
  relays: null,
  poolSize: 2,
  threads: 1,
  ratePerSecond: 0,
  batchSize: 100,
  workersPerCampaign: 1,
  retrySeconds: 60,
  maxAttempts: 5,
  leaseSeconds: 300,
  failureSeconds: 300,
  dkim: null,
};
const raw = (id: string) => `Message-ID: <${id}@shop.example>\r\nFrom: news@shop.example\r\nSubject: Hi\r\n\r\nHello\r\n`;

describe('failover between relays', () => {
  const [first, second] = [new SmtpSink(), new SmtpSink()];
  let relays: RelayTransport;

  beforeAll(async () => {
    await Promise.all([first.start(), second.start()]);
    const plan = {
      relays: [
        { name: 'first', url: first.url, maxConnections: 2, ratePerSecond: 0 },
        { name: 'second', url: second.url, maxConnections: 2, ratePerSecond: 0 },
      ],
      routes: [],
    };
    relays = new RelayTransport(plan, sending, ConnectionSlots.shared(2), () => {
      throw new Error('no relay is rate-limited');
    });
  });
  afterAll(async () => {
    relays.close();
    await Promise.all([first.stop(), second.stop()]);
  });

  const send = (to: string) => relays.sendMime('campaign', 'news@shop.example', { from: 'bounces@shop.example', to }, raw(to));

  it('moves on after a 421 before the data, and only then', async () => {
    first.closeOn.add('closing@inbox.example');
    first.rejectHard.add('gone@inbox.example');
    first.deferTimes.set('busy@inbox.example', 1);
    expect(await send('closing@inbox.example')).toMatchObject({ kind: 'accepted' });
    expect([first.to('closing@inbox.example').length, second.to('closing@inbox.example').length]).toEqual([0, 1]);
    // A recipient's 5xx is a bounce and a 4xx a deferral, whichever relay: not a reason to try another.
    expect(await send('gone@inbox.example')).toMatchObject({ kind: 'rejected', code: 550 });
    expect(await send('busy@inbox.example')).toMatchObject({ kind: 'deferred', code: 451 });
    expect(second.to('gone@inbox.example').length + second.to('busy@inbox.example').length).toBe(0);
    expect(await send('ok@inbox.example')).toMatchObject({ kind: 'accepted' });
    expect([first.to('ok@inbox.example').length, second.to('ok@inbox.example').length]).toEqual([1, 0]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, newAccount, spawnTestServer, waitFor } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { freshDatabase } from '../databases.ts';

const RECIPIENTS = 2000;
const IMPORTED = 200_000;
const OPENED = 100;

let sink: SmtpSink;
const running: ServerProcess[] = [];
beforeAll(async () => {
  sink = await new SmtpSink().start();
});
afterAll(async () => {
  for (const server of running) server.proc.kill('SIGKILL');
  await sink.stop();
});

describe('a stop under load', () => {
  it('loses nothing: the campaign sends each message once, the import every row, the tracking buffer every hit', async () => {
    const databaseUrl = await freshDatabase('stopping_under_load');
    const env = {
      DATABASE_URL: databaseUrl,
      SMTP_URL: sink.url,
      SEND_BATCH_SIZE: '50',
      IMPORT_BATCH_ROWS: '2000',
      // Hits wait in memory: only the stop writes them. Opens right after delivery count.
      TRACKING_FLUSH_MS: '60000',
      TRACKING_MACHINE_OPEN_SECONDS: '0',
    };
    const first = await spawnTestServer(env);
    running.push(first);
    const owner = await newAccount(first.url, 'load');
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `reader${i}@load.example`);
    const audience = await owner.api('POST', '/api/contacts/import', { body: { contacts: recipients.map((email) => ({ email, tags: ['readers'] })) } });
    expect(audience.body.created).toBe(RECIPIENTS);

    sink.delayMs = 30;
    const { body: campaign } = await owner.api('POST', '/api/campaigns', {
      body: { name: 'Load', subject: 'Hi', from_email: 'news@shop.example', content: '<p>Hi</p>', audience: { tags_any: ['readers'] } },
    });
    expect((await owner.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
    await waitFor(() => sink.received.length >= OPENED * 2, 60_000);
    const csv = ['email', ...Array.from({ length: IMPORTED }, (_, i) => `imported${i}@load.example`)].join('\n');
    const imported = await owner.api('POST', '/api/contacts/import', { raw: csv, headers: { 'content-type': 'text/csv' } });
    expect(imported.status).toBe(202);
    await waitFor(async () => (await owner.api('GET', `/api/contacts/import/${imported.body.id}`)).body.status === 'running');
    for (const message of sink.received.slice(0, OPENED)) {
      const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(String(message.mail.html))![1];
      expect((await fetch(first.url + new URL(pixel).pathname)).status).toBe(200);
    }
    // All three in flight as the stop comes.
    expect((await owner.api('GET', `/api/contacts/import/${imported.body.id}`)).body.status).toBe('running');
    expect(sink.received.length).toBeLessThan(RECIPIENTS);

    first.proc.kill('SIGTERM');
    expect(await first.exited, first.output()).toBe(0);
    expect(first.output()).toContain('"msg":"Sendline stopped"');
    const sentBeforeStop = sink.received.length;

    const second = await spawnTestServer(env);
    running.push(second);
    const after = client(second.url, { authorization: `Bearer ${owner.token}` });
    await waitFor(async () => (await after('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed', 120_000);
    const done = await waitFor(async () => {
      const res = await after('GET', `/api/contacts/import/${imported.body.id}`);
      return res.body.status === 'completed' && res.body;
    }, 120_000);

    const copies = new Map<string, number>();
    for (const message of sink.received) copies.set(message.to, (copies.get(message.to) ?? 0) + 1);
    expect(copies.size).toBe(RECIPIENTS);
    expect([...copies.values()].filter((n) => n !== 1)).toEqual([]);
    expect(sentBeforeStop).toBeGreaterThan(0);
    expect(done).toMatchObject({ created: IMPORTED, failed: 0 });
    const opens = await after('GET', `/api/tracking/opens?campaign_id=${campaign.id}&limit=500`);
    expect(opens.body.data).toHaveLength(OPENED);
  }, 300_000);
});

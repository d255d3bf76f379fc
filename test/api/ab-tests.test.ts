/**
 * A/B tests through an SMTP sink: the test group's split, the wait, the winner by each metric or
 * by hand, pausing and cancelling in the wait, a process killed in the wait, and the figures by
 * variant.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { fileDatabaseUrl, freshDatabase } from '../databases.ts';
import { client, expectProblem, newAccount, startTestServer, waitFor, type TestAccount } from '../helpers.ts';
import { spawnServer } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';

const PUBLIC_URL = 'http://mail.ab.test';
let sendline: Sendline;
let sink: SmtpSink;
beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Opens seconds after the send count as a reader's: the test's readers are quick.
  // A database of its own: the tests wait on the campaigns' tick, which a stopped server of another file could hold.
  sendline = await startTestServer({
    DATABASE_URL: await freshDatabase('ab_tests'),
    SMTP_URL: sink.url,
    PUBLIC_URL,
    TRACKING_FLUSH_MS: '50',
    TRACKING_MACHINE_OPEN_SECONDS: '0',
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const subjectOf = (email: string) => sink.to(email).map((m) => String(m.mail.subject));

const VARIANTS = [
  { name: 'A', subject: 'Subject A' },
  { name: 'B', subject: 'Subject B', from_name: 'Bee' },
];

/** `count` contacts tagged `label`, imported at once. */
async function audience(account: TestAccount, label: string, count: number): Promise<string[]> {
  const emails = Array.from({ length: count }, (_, i) => `${label}${i}@ab.example`);
  for (let i = 0; i < count; i += 10_000) {
    const res = await account.api('POST', '/api/contacts/import', {
      body: { contacts: emails.slice(i, i + 10_000).map((email) => ({ email, tags: [label] })) },
    });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  }
  return emails;
}

async function abCampaign(api: TestAccount['api'], label: string, abTest: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/api/campaigns', {
    body: {
      name: label,
      subject: 'Plain subject',
      from_email: 'news@ab.example',
      content: '<p>Hi</p><a href="https://shop.example/">Shop</a>',
      audience: { tags_any: [label] },
      variants: VARIANTS,
      ab_test: abTest,
      ...extra,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id;
}

const campaignOf = async (api: TestAccount['api'], id: string) => (await api('GET', `/api/campaigns/${id}`)).body;
const inPhase = (api: TestAccount['api'], id: string, phase: string, timeoutMs = 30_000) =>
  waitFor(async () => {
    const campaign = await campaignOf(api, id);
    return campaign.test_phase === phase && campaign;
  }, timeoutMs);
const completed = (api: TestAccount['api'], id: string, timeoutMs = 60_000) =>
  waitFor(async () => {
    const campaign = await campaignOf(api, id);
    return campaign.status === 'completed' && campaign;
  }, timeoutMs);

describe('an A/B test', () => {
  it('refuses variants and tests that do not fit, saying where', async () => {
    const account = await newAccount(sendline.url, 'ab');
    const base = { name: 'x', subject: 'S', from_email: 'news@ab.example', content: '<p>x</p>' };
    const test = { test_percent: 20, metric: 'opens', wait: 'PT1H', auto_send_winner: true };
    const cases: [Record<string, unknown>, string][] = [
      [{ variants: VARIANTS }, '/ab_test'],
      [{ ab_test: test }, '/ab_test'],
      [{ variants: [VARIANTS[0], { name: 'A' }], ab_test: test }, '/variants/1/name'],
      [{ variants: [VARIANTS[0], { name: 'B', content: '<p>{{ oops </p>' }], ab_test: test }, '/variants/1/content'],
      [{ variants: VARIANTS, ab_test: { ...test, wait: 'P40D' } }, '/ab_test/wait'],
      [{ variants: [VARIANTS[0]], ab_test: test }, '/variants'],
      [{ variants: VARIANTS, ab_test: { ...test, test_percent: 0 } }, '/ab_test'],
    ];
    for (const [fields, pointer] of cases) {
      const res = await account.api('POST', '/api/campaigns', { body: { ...base, ...fields } });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors[0].pointer, JSON.stringify(fields)).toBe(pointer);
    }
    // A test goes out at one time: not with a schedule in each contact's zone, whichever comes first.
    const zoned = (await account.api('POST', '/api/campaigns', { body: base })).body.id;
    await account.api('POST', `/api/campaigns/${zoned}/schedule`, { body: { local_time: '2031-01-01T09:00', by_contact_timezone: true } });
    const replaced = await account.api('PUT', `/api/campaigns/${zoned}`, { body: { ...base, variants: VARIANTS, ab_test: test } });
    expectProblem(replaced, 400, 'validation_failed');
    expect(replaced.body.errors[0].pointer).toBe('/variants');
    const tested = (await account.api('POST', '/api/campaigns', { body: { ...base, variants: VARIANTS, ab_test: test } })).body.id;
    const scheduled = await account.api('POST', `/api/campaigns/${tested}/schedule`, { body: { local_time: '2031-01-01T09:00', by_contact_timezone: true } });
    expectProblem(scheduled, 400, 'validation_failed');
    expect(scheduled.body.errors[0].pointer).toBe('/by_contact_timezone');
  });

  it('splits a random test group of 10,000 evenly, waits, and sends the winner chosen by hand to the rest', async () => {
    const account = await newAccount(sendline.url, 'ab');
    const emails = await audience(account, 'split', 10_000);
    const variants = [...VARIANTS, { name: 'C', subject: 'Subject C', content: '<p>Third</p>' }];
    const id = await abCampaign(account.api, 'split', { test_percent: 30, metric: 'opens', wait: 'PT1H', auto_send_winner: false }, { variants });
    await account.api('POST', `/api/campaigns/${id}/send`);
    // 3,000 then 7,000 messages: beside the other files of a full run on 2 cores, each part has taken over a minute.
    const waiting = await inPhase(account.api, id, 'waiting', 120_000);
    expect(waiting).toMatchObject({ status: 'sending', winner: null, stats: { recipients: 10_000, sent: 3000 } });
    expect(new Date(waiting.test_decides_at).getTime() - Date.now()).toBeGreaterThan(55 * 60_000);
    const counts = { A: 0, B: 0, C: 0 } as Record<string, number>;
    let firstThousand = 0;
    emails.forEach((email, i) => {
      const got = subjectOf(email);
      if (got.length) {
        counts[got[0].slice(-1)]++;
        if (i < 1000) firstThousand++;
      }
    });
    expect(counts).toEqual({ A: 1000, B: 1000, C: 1000 });
    // Drawn at random, not the first contacts: about 300 of the first thousand.
    expect(firstThousand).toBeGreaterThan(200);
    expect(firstThousand).toBeLessThan(400);
    const sample = emails.find((email) => subjectOf(email)[0] === 'Subject C')!;
    expect(String(sink.to(emails.find((email) => subjectOf(email)[0] === 'Subject B')!)[0].mail.from?.text)).toContain('Bee');
    // Its web version shows the variant it carried.
    const view = /href="http:\/\/mail\.ab\.test(\/v\/[^"]+)">View in browser/.exec(String(sink.to(sample)[0].mail.html))![1];
    expect(await (await fetch(sendline.url + view)).text()).toContain('<p>Third</p>');
    const messages = (await account.api('GET', `/api/campaigns/${id}/messages?limit=3`)).body.data;
    expect(messages.every((m: { variant: string }) => ['A', 'B', 'C'].includes(m.variant))).toBe(true);
    const sent = (await account.api('GET', '/api/events?type=email.delivered&limit=1')).body.data[0];
    expect(['A', 'B', 'C']).toContain(sent.data.variant);

    expectProblem(await account.api('POST', `/api/campaigns/${id}/winner`, { body: { variant: 'Z' } }), 400, 'validation_failed');
    const other = await newAccount(sendline.url, 'ab');
    expectProblem(await other.api('POST', `/api/campaigns/${id}/winner`, { body: { variant: 'C' } }), 404, 'not_found');
    const chosen = await account.api('POST', `/api/campaigns/${id}/winner`, { body: { variant: 'C' } });
    expect(chosen.body).toMatchObject({ test_phase: 'decided', winner: { variant: 'C', picked_by: 'manual' } });
    expectProblem(await account.api('POST', `/api/campaigns/${id}/winner`, { body: { variant: 'A' } }), 409, 'invalid_state_transition');
    const done = await completed(account.api, id, 120_000);
    expect(done.stats).toMatchObject({ recipients: 10_000, sent: 10_000 });
    for (const email of emails) expect(subjectOf(email)).toHaveLength(1);
    expect(emails.filter((email) => subjectOf(email)[0] === 'Subject C')).toHaveLength(8000);
    const analytics = (await account.api('GET', `/api/analytics/campaigns/${id}`)).body;
    expect(analytics.variants.map((v: { name: string; recipients: number; sent: number }) => [v.name, v.recipients, v.sent])).toEqual([
      ['A', 1000, 1000],
      ['B', 1000, 1000],
      ['C', 8000, 8000],
    ]);
    expect(analytics.winner).toMatchObject({ variant: 'C', picked_by: 'manual' });
  }, 120_000);

  /** Engagement with variant B's test messages: its opens, its clicks or its contacts' conversions. */
  const engage: Record<string, (account: TestAccount, id: string, bMails: string[]) => Promise<void>> = {
    opens: async (_account, _id, bMails) => {
      // A reader's mail client, not a scanner or a privacy proxy: machine opens do not count.
      const headers = { 'user-agent': 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15' };
      for (const email of bMails)
        await fetch(sendline.url + /src="http:\/\/mail\.ab\.test(\/t\/o\/[^"]+)"/.exec(String(sink.to(email)[0].mail.html))![1], { headers });
    },
    clicks: async (_account, _id, bMails) => {
      for (const email of bMails)
        await fetch(sendline.url + /href="http:\/\/mail\.ab\.test(\/t\/c\/[^"]+)"/.exec(String(sink.to(email)[0].mail.html))![1], { redirect: 'manual' });
    },
    conversions: async (account, id, bMails) => {
      for (const email of bMails) {
        const contact = (await account.api('GET', `/api/contacts?email=${encodeURIComponent(email)}`)).body.data[0];
        expect((await account.api('POST', '/api/conversions', { body: { contact_id: contact.id, campaign_id: id, type: 'purchase' } })).status).toBe(201);
      }
    },
  };

  for (const metric of ['opens', 'clicks', 'conversions'] as const) {
    it(`picks the variant with the most ${metric} per message delivered at the end of the wait, and sends it to the rest`, async () => {
      const account = await newAccount(sendline.url, 'ab');
      const label = `metric${metric}`;
      const emails = await audience(account, label, 40);
      const id = await abCampaign(account.api, label, { test_percent: 50, metric, wait: 'PT3S', auto_send_winner: true });
      await account.api('POST', `/api/campaigns/${id}/send`);
      await inPhase(account.api, id, 'waiting');
      const bMails = emails.filter((email) => subjectOf(email)[0] === 'Subject B');
      expect(bMails).toHaveLength(10);
      // B's figures only: without them the tie would go to A.
      await engage[metric](account, id, bMails.slice(0, 3));
      const done = await completed(account.api, id);
      expect(done.winner).toMatchObject({ variant: 'B', picked_by: metric });
      expect(emails.filter((email) => subjectOf(email)[0] === 'Subject B')).toHaveLength(30);
      for (const email of emails) expect(subjectOf(email)).toHaveLength(1);
      const figures = (await account.api('GET', `/api/analytics/campaigns/${id}`)).body.variants;
      const rate = { opens: 'open_rate', clicks: 'click_rate', conversions: 'conversion_rate' }[metric];
      expect(figures[0][rate]).toBe(0);
      expect(figures[1][rate]).toBeGreaterThan(0);
    });
  }

  it('sends no winner while paused in the wait, and sends it once resumed; a cancel in the wait sends nothing more', async () => {
    const account = await newAccount(sendline.url, 'ab');
    const emails = await audience(account, 'pausing', 20);
    const id = await abCampaign(account.api, 'pausing', { test_percent: 50, metric: 'opens', wait: 'PT1S', auto_send_winner: true });
    await account.api('POST', `/api/campaigns/${id}/send`);
    await inPhase(account.api, id, 'waiting');
    expect((await account.api('POST', `/api/campaigns/${id}/pause`)).body.status).toBe('paused');
    await sleep(3000);
    expect(await campaignOf(account.api, id)).toMatchObject({ status: 'paused', test_phase: 'waiting', winner: null });
    expect(emails.filter((email) => subjectOf(email).length)).toHaveLength(10);
    expect((await account.api('POST', `/api/campaigns/${id}/resume`)).body.status).toBe('sending');
    const done = await completed(account.api, id);
    expect(done.winner).toMatchObject({ variant: 'A', picked_by: 'opens' });
    for (const email of emails) expect(subjectOf(email)).toHaveLength(1);

    const cancelled = await audience(account, 'cancelling', 20);
    const other = await abCampaign(account.api, 'cancelling', { test_percent: 50, metric: 'opens', wait: 'PT2S', auto_send_winner: true });
    await account.api('POST', `/api/campaigns/${other}/send`);
    await inPhase(account.api, other, 'waiting');
    expect((await account.api('POST', `/api/campaigns/${other}/cancel`)).body.status).toBe('cancelled');
    await sleep(3500);
    expect(cancelled.filter((email) => subjectOf(email).length)).toHaveLength(10);
    expectProblem(await account.api('POST', `/api/campaigns/${other}/winner`, { body: { variant: 'A' } }), 409, 'invalid_state_transition');
  });

  it('splits the whole audience with test_percent 100, and completes with the winner on record', async () => {
    const account = await newAccount(sendline.url, 'ab');
    const emails = await audience(account, 'whole', 10);
    const id = await abCampaign(account.api, 'whole', { test_percent: 100, metric: 'clicks', wait: 'PT0S', auto_send_winner: false });
    await account.api('POST', `/api/campaigns/${id}/send`);
    const done = await completed(account.api, id);
    expect(done).toMatchObject({ test_phase: 'decided', winner: { variant: 'A', picked_by: 'clicks' }, stats: { recipients: 10, sent: 10 } });
    expect(emails.filter((email) => subjectOf(email)[0] === 'Subject A')).toHaveLength(5);
  });

  it('loses nothing when its process is killed in the wait: the next one sends the winner once', async () => {
    const env = {
      DATABASE_URL: fileDatabaseUrl(),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-ab-')),
      JWT_SECRET: 'ab-test-secret-shared-by-all-processes-0123456',
      ALLOW_SIGNUP: 'true',
      SMTP_URL: sink.url,
    };
    const first = await spawnServer(env);
    const account = await newAccount(first.url, 'killed');
    const api = client(first.url, { authorization: `Bearer ${account.token}` });
    const emails = await audience({ ...account, api }, 'killed', 200);
    const id = await abCampaign(api, 'killed', { test_percent: 20, metric: 'opens', wait: 'PT2S', auto_send_winner: true });
    await api('POST', `/api/campaigns/${id}/send`);
    await inPhase(api, id, 'waiting');
    first.proc.kill('SIGKILL');
    await first.exited;
    await sleep(2500);
    const second = await spawnServer(env);
    try {
      const again = client(second.url, { authorization: `Bearer ${account.token}` });
      const done = await completed(again, id);
      expect(done.stats).toMatchObject({ recipients: 200, sent: 200 });
      for (const email of emails) expect(subjectOf(email)).toHaveLength(1);
    } finally {
      second.proc.kill('SIGKILL');
      await second.exited;
    }
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlOf } from '../../server/db/kysely.ts';
import { pruneEmailContents } from '../../server/emails/job.ts';
import { emails } from '../../server/emails/store.ts';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
let account: TestAccount;
/** The pruning job's work, on the server's database with its retention. */
const prune = () => pruneEmailContents(sqlOf(sendline.orm.em.fork()), sendline.config.emailContentRetentionDays);

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    EMAIL_CONTENT_RETENTION_DAYS: '1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  account = await newAccount(sendline.url, 'retention');
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

const HTML = '<p>Your receipt for order 1042</p>';
const message = (to: string, overrides: Record<string, unknown> = {}) => ({
  from: { email: 'receipts@shop.example', name: 'Shop' },
  to: [{ email: to }],
  subject: 'Your receipt',
  html: HTML,
  text: 'Order 1042',
  headers: { 'X-Order': '1042' },
  attachments: [{ filename: 'receipt.txt', content_type: 'text/plain', content: Buffer.from('receipt').toString('base64') }],
  ...overrides,
});

const query = <T>(text: string, params: unknown[] = []) => sendline.orm.em.getConnection().execute<T[]>(text, params);

interface ContentRow {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  attachments: unknown[];
  subject: string;
  pruned_at: Date | null;
}
const contentOf = async (emailId: string) =>
  (
    await query<ContentRow>(
      'select c.html, c.text, c.headers, c.attachments, c.subject, c.pruned_at from email_contents c join emails e on e.content_id = c.id where e.id = ?',
      [emailId],
    )
  )[0];

/** Makes a request look `days` old: created then, and its final copies finished then. */
const age = (emailId: string, days: number) =>
  query(
    `with c as (update email_contents set created_at = now() - make_interval(days => ?) where id = (select content_id from emails where id = ?) returning id)
     update emails set finished_at = case when finished_at is null then null else now() - make_interval(days => ?) end where content_id in (select id from c)`,
    [days, emailId, days],
  );

const send = async (to: string, overrides: Record<string, unknown> = {}): Promise<string> => {
  const res = await account.api('POST', '/api/emails', { body: message(to, overrides) });
  expect(res.status).toBe(202);
  return res.body.data[0].id as string;
};
const delivered = (id: string) =>
  waitFor(async () => {
    const res = await account.api('GET', `/api/emails/${id}`);
    return res.body.status === 'delivered' ? res.body : undefined;
  });

describe('email contents retention', () => {
  it('drops body, headers and attachments once every copy is final and past EMAIL_CONTENT_RETENTION_DAYS, never a pending copy', async () => {
    const [sentTo, legacyTo, scheduledTo, cancelledTo] = ['sent', 'legacy', 'scheduled', 'cancelled'].map((l) => uniqueEmail(`keep-${l}`));
    const sent = await send(sentTo);
    const legacy = await send(legacyTo);
    const later = new Date(Date.now() + 3600_000).toISOString();
    const scheduled = await send(scheduledTo, { scheduled_at: later });
    const cancelled = await send(cancelledTo, { scheduled_at: later });
    expect((await account.api('POST', `/api/emails/${cancelled}/cancel`)).status).toBe(200);
    await delivered(sent);
    await delivered(legacy);

    // Finished just now: within the day kept.
    await prune();
    for (const id of [sent, legacy, scheduled, cancelled]) expect((await contentOf(id)).html).toBe(HTML);

    for (const id of [sent, legacy, scheduled, cancelled]) await age(id, 2);
    // A final copy from before `finished_at` existed counts as finished long ago.
    await query('update emails set finished_at = null where id = ?', [legacy]);
    // Bounded statements: one request at a time here, then the job's batches take the rest.
    expect(await emails.pruneContents(sqlOf(sendline.orm.em.fork()), 1, 1)).toBe(1);
    expect(await prune()).toBe(2);
    expect(await prune()).toBe(0);

    for (const id of [sent, legacy, cancelled]) {
      expect(await contentOf(id)).toMatchObject({ html: null, text: null, headers: {}, attachments: [], subject: 'Your receipt', pruned_at: expect.any(Date) });
    }
    // Still scheduled, however old the request: kept.
    expect(await contentOf(scheduled)).toMatchObject({ html: HTML, pruned_at: null });

    // The copy, its status and its timeline stay.
    const got = await account.api('GET', `/api/emails/${sent}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: sent, status: 'delivered', subject: 'Your receipt', from: 'receipts@shop.example' });
    expect(got.body.events.map((e: { type: string }) => e.type)).toEqual(['email.sent', 'email.delivered']);
    const listed = await account.api('GET', `/api/emails?to=${encodeURIComponent(sentTo)}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toEqual([sent]);
    expect((await account.api('GET', `/api/emails/${cancelled}`)).body.status).toBe('cancelled');

    // The scheduled one, once due, goes out whole.
    await query('update emails set next_attempt_at = now() where id = ?', [scheduled]);
    const [copy] = await waitFor(() => (sink.to(scheduledTo).length ? sink.to(scheduledTo) : undefined));
    expect(copy.mail.html).toContain('order 1042');
    expect(copy.mail.attachments.map((a) => a.content.toString())).toEqual(['receipt']);
    await delivered(scheduled);
  });

  it('runs as a periodic job', async () => {
    expect(await query("select name from agenda_jobs where name = 'email-contents.prune'")).toHaveLength(1);
  });
});

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { fileDatabaseUrl } from '../databases.ts';

let sendline: Sendline;
let sink: SmtpSink;
const PUBLIC_URL = 'https://mail.example.test';

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    SEND_RETRY_SECONDS: '1',
    SEND_BATCH_SIZE: '5',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const draft = (overrides: Record<string, unknown> = {}) => ({
  name: 'Spring news',
  subject: 'Hello {{ first_name | default: "there" }}',
  from_email: 'news@shop.example',
  content:
    '<html><body><p>Hi {{ first_name | default: "there" }} from {{ city }}!</p><a href="https://shop.example/sale?x=1&amp;y=2">Sale</a> <a href="mailto:help@shop.example">Help</a></body></html>',
  ...overrides,
});

const finished = (account: TestAccount, id: string, status = 'completed') =>
  waitFor(async () => {
    const res = await account.api('GET', `/api/campaigns/${id}`);
    return res.body.status === status ? res.body : undefined;
  });

async function events(accountId: string, type: string) {
  return sendline.orm.em.getConnection().execute('select data from events where account_id = ? and type = ? order by seq', [accountId, type]);
}

describe('campaign drafts', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'drafts');
  });

  it('the seed fields make a draft with defaults', async () => {
    const res = await account.api('POST', '/api/campaigns', { body: draft() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'draft',
      track_opens: true,
      track_clicks: true,
      audience: {},
      text_content: null,
      stats: { recipients: 0, sent: 0 },
    });
    expect(res.body.id).toMatch(/^cmp_/);
  });

  it('takes null for a nullable field (the validator once coerced it to "" and refused it)', async () => {
    const res = await account.api('POST', '/api/campaigns', { body: draft({ reply_to: null, from_name: null }) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ reply_to: null, from_name: null });
  });

  it('refuses a template that does not parse, saying where', async () => {
    const res = await account.api('POST', '/api/campaigns', { body: draft({ content: '<p>\n{{ first_name | nosuchfilter }}</p>', subject: 'Hi {{ name ' }) });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { pointer: '/subject', detail: expect.stringMatching(/^line 1, column 4: /) },
      { pointer: '/content', detail: expect.stringMatching(/^line 2, column 1: undefined filter: nosuchfilter/) },
    ]);
  });

  it('refuses templates that would load files from the server (include, render, layout)', async () => {
    const res = await account.api('POST', '/api/campaigns', {
      body: draft({
        content: "<p>Hi</p>\n{% include 'package.json' %}",
        text_content: "{% render 'data/jwt-secret' %}",
        preheader: "{% layout '/etc/hostname' %}",
      }),
    });
    expectProblem(res, 400, 'validation_failed');
    expect(res.body.errors).toEqual([
      { pointer: '/content', detail: expect.stringMatching(/^line 2, column 1: \{% include %\} is not available/) },
      { pointer: '/text_content', detail: expect.stringMatching(/^line 1, column 1: \{% render %\} is not available/) },
      { pointer: '/preheader', detail: expect.stringMatching(/^line 1, column 1: \{% layout %\} is not available/) },
    ]);
  });

  it('edits, duplicates and deletes drafts', async () => {
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    const edited = await account.api('PUT', `/api/campaigns/${c.id}`, { body: draft({ name: 'Renamed', audience: { tags_any: ['vip'] } }) });
    expect(edited.body).toMatchObject({ name: 'Renamed', audience: { tags_any: ['vip'] } });
    const copy = await account.api('POST', `/api/campaigns/${c.id}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({ name: 'Renamed (copy)', status: 'draft', audience: { tags_any: ['vip'] } });
    expect((await account.api('DELETE', `/api/campaigns/${c.id}`)).status).toBe(204);
    expectProblem(await account.api('GET', `/api/campaigns/${c.id}`), 404, 'not_found');
  });

  it('keeps the editor source of the content, copies it, and refuses one without the field of its format', async () => {
    const blocks = { root: { type: 'EmailLayout', data: { childrenIds: ['t'] } }, t: { type: 'Text', data: { props: { text: 'Hi' } } } };
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft({ content_source: { format: 'blocks', blocks } }) });
    expect(c.content_source).toEqual({ format: 'blocks', blocks });
    expect((await account.api('GET', `/api/campaigns/${c.id}`)).body.content_source).toEqual({ format: 'blocks', blocks });
    expect((await account.api('POST', `/api/campaigns/${c.id}/duplicate`)).body.content_source).toEqual({ format: 'blocks', blocks });
    const markdown = await account.api('PUT', `/api/campaigns/${c.id}`, { body: draft({ content_source: { format: 'markdown', markdown: '# Hi' } }) });
    expect(markdown.body.content_source).toEqual({ format: 'markdown', markdown: '# Hi' });
    expect((await account.api('PUT', `/api/campaigns/${c.id}`, { body: draft() })).body.content_source).toBeNull();
    const missing = await account.api('POST', '/api/campaigns', { body: draft({ content_source: { format: 'markdown', blocks } }) });
    expectProblem(missing, 400, 'validation_failed');
    expect(missing.body.errors[0].pointer).toBe('/content_source/markdown');
    const both = await account.api('PUT', `/api/campaigns/${c.id}`, { body: draft({ content_source: { format: 'blocks', blocks, markdown: 'x' } }) });
    expectProblem(both, 400, 'validation_failed');
    expect(both.body.errors[0].pointer).toBe('/content_source/markdown');
    expectProblem(
      await account.api('POST', '/api/campaigns', { body: draft({ content_source: { format: 'mjml', markdown: 'x' } }) }),
      400,
      'validation_failed',
    );
  });

  it('lists oldest first by default, or newest first, page after page', async () => {
    const lister = await newAccount(sendline.url, 'order');
    const ids: string[] = [];
    for (const name of ['first', 'second', 'third']) ids.push((await lister.api('POST', '/api/campaigns', { body: draft({ name }) })).body.id);
    const walk = async (order?: string) => {
      const seen: string[] = [];
      let cursor = '';
      do {
        const query = new URLSearchParams({ limit: '2', ...(order && { order }), ...(cursor && { cursor }) });
        const page = await lister.api('GET', `/api/campaigns?${query.toString()}`);
        expect(page.status).toBe(200);
        seen.push(...page.body.data.map((c: { id: string }) => c.id));
        cursor = page.body.next_cursor ?? '';
      } while (cursor);
      return seen;
    };
    expect(await walk()).toEqual(ids);
    expect(await walk('oldest')).toEqual(ids);
    expect(await walk('newest')).toEqual([...ids].reverse());
    expectProblem(await lister.api('GET', '/api/campaigns?order=name'), 400, 'validation_failed');
  });

  it('refuses invalid transitions with the current status', async () => {
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    for (const action of ['pause', 'resume', 'unschedule']) {
      const res = await account.api('POST', `/api/campaigns/${c.id}/${action}`);
      expectProblem(res, 409, 'invalid_state_transition');
      expect(res.body.current_status).toBe('draft');
    }
    await account.api('POST', `/api/campaigns/${c.id}/cancel`);
    const res = await account.api('PUT', `/api/campaigns/${c.id}`, { body: draft() });
    expectProblem(res, 409, 'invalid_state_transition');
    expect(res.body.current_status).toBe('cancelled');
    expectProblem(await account.api('POST', `/api/campaigns/${c.id}/send`), 409, 'invalid_state_transition');
  });

  it('schedules only in the future, unschedules back to draft', async () => {
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    expectProblem(await account.api('POST', `/api/campaigns/${c.id}/schedule`, { body: { scheduled_at: '2020-01-01T00:00:00Z' } }), 400, 'validation_failed');
    const at = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await account.api('POST', `/api/campaigns/${c.id}/send`, { body: { scheduled_at: at } });
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduled_at: at });
    expect((await events(account.accountId, 'campaign.scheduled')).at(-1)?.data).toMatchObject({ campaign_id: c.id, scheduled_at: at });
    const back = await account.api('POST', `/api/campaigns/${c.id}/unschedule`);
    expect(back.body).toMatchObject({ status: 'draft', scheduled_at: null });
  });
});

describe('sending', () => {
  it('sends a personalised, tracked, unsubscribable message to every subscribed contact of the audience', async () => {
    const account = await newAccount(sendline.url, 'sender');
    const people = [
      { email: 'ann@inbox.example', first_name: 'Ann', tags: ['vip'], attributes: { city: 'Rome' } },
      { email: 'bob@inbox.example', tags: ['vip'], attributes: { city: '<b>Oslo</b>' } },
      { email: 'cid@inbox.example', first_name: 'Cid', tags: ['vip', 'staff'] },
      { email: 'dee@inbox.example', first_name: 'Dee', tags: ['other'] },
      { email: 'eve@inbox.example', first_name: 'Eve', tags: ['vip'], status: 'unsubscribed' },
    ];
    for (const p of people) await account.api('POST', '/api/contacts', { body: p });
    const { body: c } = await account.api('POST', '/api/campaigns', {
      body: draft({
        audience: { tags_any: ['vip'], exclude_tags: ['staff'] },
        preheader: 'Big sale inside',
        from_name: 'The Shop',
        reply_to: 'care@shop.example',
      }),
    });
    const started = await account.api('POST', `/api/campaigns/${c.id}/send`);
    expect(started.body).toMatchObject({ status: 'sending', stats: { recipients: 2 } });
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 2, sent: 2, delivered: 2, bounced: 0, failed: 0 });
    expect(done.completed_at).not.toBeNull();
    expect(sink.to('cid@inbox.example')).toHaveLength(0);
    expect(sink.to('dee@inbox.example')).toHaveLength(0);
    expect(sink.to('eve@inbox.example')).toHaveLength(0);

    const [ann] = sink.to('ann@inbox.example');
    const { mail } = ann;
    expect(mail.subject).toBe('Hello Ann');
    expect(mail.from?.value[0]).toEqual({ name: 'The Shop', address: 'news@shop.example' });
    expect(mail.replyTo?.value[0].address).toBe('care@shop.example');
    expect(ann.raw).toMatch(/Content-Type: multipart\/alternative/i);
    expect(mail.text).toContain('Hi Ann from Rome!');
    const messageId = mail.headers.get('x-sendline-message') as string;
    expect(messageId).toMatch(/^msg_/);
    expect(mail.messageId).toBe(`<${messageId}@shop.example>`);
    expect(ann.envelopeFrom).toBe(`bounces+${messageId}@shop.example`);
    const unfolded = ann.raw.replace(/\r?\n[ \t]+/g, ' ');
    expect(unfolded).toMatch(/List-Unsubscribe: <https:\/\/mail\.example\.test\/u\/[\w.-]+>, <mailto:unsubscribe\+msg_/);
    expect(unfolded).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const html = mail.html as string;
    expect(html).toContain('Hi Ann from Rome!');
    expect(html).toContain('Big sale inside');
    expect(html).toMatch(/<img src="https:\/\/mail\.example\.test\/t\/o\/[\w.-]+\.gif"/);
    expect(html).not.toContain('https://shop.example/sale');
    expect(html).toMatch(/<a href="https:\/\/mail\.example\.test\/t\/c\/[\w.-]+">Sale<\/a>/);
    expect(html).toContain('href="mailto:help@shop.example"');
    expect(html).toMatch(/<a href="https:\/\/mail\.example\.test\/u\/[\w.-]+">Unsubscribe<\/a>/);
    // The click token carries the original link, signed.
    const token = /\/t\/c\/([\w.-]+)"/.exec(html)![1];
    expect(sendline.signer.verify(token)).toMatchObject({ kind: 'click', messageId, link: 0, url: 'https://shop.example/sale?x=1&y=2' });

    const [bob] = sink.to('bob@inbox.example');
    expect(bob.mail.subject).toBe('Hello there');
    expect(bob.mail.html).toContain('Hi there from &lt;b&gt;Oslo&lt;/b&gt;!');

    const messages = await account.api('GET', `/api/campaigns/${c.id}/messages`);
    expect(messages.body.data.map((m: any) => [m.email, m.status])).toEqual(
      expect.arrayContaining([
        ['ann@inbox.example', 'delivered'],
        ['bob@inbox.example', 'delivered'],
      ]),
    );
    expect((await events(account.accountId, 'email.sent')).length).toBe(2);
    expect((await events(account.accountId, 'email.delivered')).length).toBe(2);
    expect((await events(account.accountId, 'campaign.started')).length).toBe(1);
    expect((await events(account.accountId, 'campaign.completed'))[0].data.stats).toMatchObject({ sent: 2, delivered: 2 });
  });

  it('uses the text part given, and an author-placed unsubscribe link without a footer', async () => {
    const account = await newAccount(sendline.url, 'texter');
    await account.api('POST', '/api/contacts', { body: { email: 'tim@inbox.example', first_name: 'Tim' } });
    const { body: c } = await account.api('POST', '/api/campaigns', {
      body: draft({
        content: '<p>Hi</p><a href="{{ unsubscribe_url }}">Leave</a>',
        text_content: 'Hi {{ first_name }}. Leave: {{ unsubscribe_url }}',
        track_opens: false,
        track_clicks: false,
      }),
    });
    await account.api('POST', `/api/campaigns/${c.id}/send`);
    await finished(account, c.id);
    const [tim] = sink.to('tim@inbox.example');
    expect(tim.mail.text).toMatch(/^Hi Tim\. Leave: https:\/\/mail\.example\.test\/u\//);
    expect(tim.mail.html).not.toContain('/t/o/');
    expect(tim.mail.html).not.toContain('Unsubscribe</a>');
    expect(tim.mail.html).toMatch(/<a href="https:\/\/mail\.example\.test\/u\/[\w.-]+">Leave<\/a>/);
  });

  it('bounces 5xx recipients (suppressing them) and retries 4xx ones', async () => {
    const account = await newAccount(sendline.url, 'bouncer');
    sink.rejectHard.add('gone@inbox.example');
    sink.deferTimes.set('busy@inbox.example', 1);
    for (const email of ['gone@inbox.example', 'busy@inbox.example', 'fine@inbox.example']) await account.api('POST', '/api/contacts', { body: { email } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    await account.api('POST', `/api/campaigns/${c.id}/send`);
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 3, sent: 2, delivered: 2, bounced: 1, deferred: 1, failed: 0 });
    expect(sink.to('busy@inbox.example')).toHaveLength(1);
    const analytics = (await account.api('GET', `/api/analytics/campaigns/${c.id}`)).body;
    expect(analytics).toMatchObject({
      bounces: { hard: done.stats.bounced, soft: 0 },
      domains: [expect.objectContaining({ domain: 'inbox.example', bounces: 1 })],
    });
    const contacts = await account.api('GET', '/api/contacts?status=bounced');
    expect(contacts.status, JSON.stringify(contacts.body)).toBe(200);
    expect(contacts.body.data.map((x: any) => x.email)).toEqual(['gone@inbox.example']);
    expect(contacts.body.data[0].status_reason).toContain('No such user');
    expect((await events(account.accountId, 'email.bounced'))[0].data).toMatchObject({ email: 'gone@inbox.example', bounce_type: 'hard' });
    expect((await events(account.accountId, 'email.deferred'))[0].data).toMatchObject({ email: 'busy@inbox.example', attempt: 1 });
    expect((await events(account.accountId, 'contact.suppressed'))[0].data).toMatchObject({ email: 'gone@inbox.example', status: 'bounced' });
    const bouncedLog = await account.api('GET', `/api/campaigns/${c.id}/messages?status=bounced`);
    expect(bouncedLog.body.data.map((m: any) => m.email)).toEqual(['gone@inbox.example']);

    // The next campaign leaves the bounced contact out.
    const { body: next } = await account.api('POST', '/api/campaigns', { body: draft() });
    expect((await account.api('POST', `/api/campaigns/${next.id}/send`)).body.stats.recipients).toBe(2);
    await finished(account, next.id);
  });

  it('fails, rather than bounces, a recipient the relay refuses for its syntax', async () => {
    const account = await newAccount(sendline.url, 'syntax');
    sink.rejectSyntax.add('strict@inbox.example');
    for (const email of ['strict@inbox.example', 'fine@inbox.example']) await account.api('POST', '/api/contacts', { body: { email } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    await account.api('POST', `/api/campaigns/${c.id}/send`);
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 2, sent: 1, bounced: 0, failed: 1 });
    const failed = await account.api('GET', `/api/campaigns/${c.id}/messages?status=failed`);
    expect(failed.body.data.map((m: any) => m.email)).toEqual(['strict@inbox.example']);
    expect((await events(account.accountId, 'email.failed'))[0].data.reason).toContain('501');
    expect(await events(account.accountId, 'email.bounced')).toHaveLength(0);
    expect((await account.api('GET', '/api/contacts?status=subscribed')).body.data).toHaveLength(2);
  });

  /** 30 recipients through a slowed relay, stopped by `action` once the first messages arrive. */
  async function stopMidway(label: string, action: 'pause' | 'cancel') {
    const account = await newAccount(sendline.url, label);
    const emails = Array.from({ length: 30 }, (_, i) => `${label}${i}@slow.example`);
    await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    const reached = () => emails.filter((e) => sink.to(e).length).length;
    sink.delayMs = 40;
    try {
      await account.api('POST', `/api/campaigns/${c.id}/send`);
      await waitFor(() => reached() > 0);
      const stopped = await account.api('POST', `/api/campaigns/${c.id}/${action}`);
      expect(stopped.body.status).toBe(action === 'pause' ? 'paused' : 'cancelled');
      // The batch in flight finishes; after that nothing more goes out.
      await new Promise((r) => setTimeout(r, 1000));
      const sentBefore = reached();
      await new Promise((r) => setTimeout(r, 700));
      expect(reached()).toBe(sentBefore);
      expect(sentBefore).toBeLessThan(30);
    } finally {
      sink.delayMs = 0;
    }
    return { account, campaignId: c.id as string, emails };
  }

  it('pauses within a batch, resumes where it stopped, and never sends twice', async () => {
    const { account, campaignId, emails } = await stopMidway('pauser', 'pause');
    expect((await events(account.accountId, 'campaign.paused')).length).toBe(1);
    const resumed = await account.api('POST', `/api/campaigns/${campaignId}/resume`);
    expect(resumed.body.status).toBe('sending');
    const done = await finished(account, campaignId);
    expect(done.stats).toMatchObject({ recipients: 30, sent: 30 });
    for (const e of emails) expect(sink.to(e)).toHaveLength(1);
  });

  it('cancels for good', async () => {
    const { account, campaignId } = await stopMidway('canceller', 'cancel');
    // The audience's messages not written yet never are; none is left waiting to be sent.
    const listed = await account.api('GET', `/api/campaigns/${campaignId}/messages?limit=500`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeLessThan(30);
    expect(listed.body.data.filter((m: { status: string }) => ['queued', 'sending', 'deferred'].includes(m.status))).toEqual([]);
    expect((await events(account.accountId, 'campaign.cancelled')).length).toBe(1);
    expectProblem(await account.api('POST', `/api/campaigns/${campaignId}/resume`), 409, 'invalid_state_transition');
    expect((await account.api('DELETE', `/api/campaigns/${campaignId}`)).status).toBe(204);
  });

  // It watches the waits in pg_stat_activity, where under Citus they happen on the workers.
  it.skipIf(process.env.SENDLINE_TEST_ON_CLUSTER)('records a batch in the order a cancel locks: the campaign, then the audience', async () => {
    const account = await newAccount(sendline.url, 'racer');
    const emails = Array.from({ length: 30 }, (_, i) => `racer${i}@slow.example`);
    await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    const [holder, prober] = [new pg.Client({ connectionString: fileDatabaseUrl() }), new pg.Client({ connectionString: fileDatabaseUrl() })];
    await Promise.all([holder.connect(), prober.connect()]);
    sink.delayMs = 150;
    try {
      await account.api('POST', `/api/campaigns/${c.id}/send`);
      await waitFor(() => emails.some((e) => sink.to(e).length));
      // The campaign's row held as a cancel holds it; the batch in flight is recorded meanwhile.
      await holder.query('begin');
      const { rows } = await holder.query('select pg_backend_pid() as pid from campaigns where account_id = $1 and id = $2 for no key update', [
        account.accountId,
        c.id,
      ]);
      await waitFor(async () => (await prober.query('select 1 from pg_stat_activity where $1 = any(pg_blocking_pids(pid))', [rows[0].pid])).rowCount);
      // Waiting for the campaign's row, it holds none of the audience's: a cancel takes them next.
      await prober.query('begin');
      await prober.query('select id from campaign_audience_pieces where account_id = $1 and campaign_id = $2 for update nowait', [account.accountId, c.id]);
      await prober.query('rollback');
      await holder.query('rollback');
      const cancelled = await account.api('POST', `/api/campaigns/${c.id}/cancel`);
      expect(cancelled.body.status).toBe('cancelled');
    } finally {
      sink.delayMs = 0;
      await Promise.all([holder.end(), prober.end()]);
    }
    // A batch taken before the cancel still goes out and is recorded; then nothing more goes.
    await new Promise((r) => setTimeout(r, 1000));
    const reached = emails.filter((e) => sink.to(e).length);
    expect(reached.length).toBeLessThan(30);
    const delivered = await waitFor(async () => {
      const { body } = await account.api('GET', `/api/campaigns/${c.id}/messages?status=delivered&limit=100`);
      return body.data.length === reached.length ? body.data : undefined;
    });
    expect(delivered.map((m: { email: string }) => m.email).sort()).toEqual(reached.sort());
    expect((await account.api('GET', `/api/campaigns/${c.id}`)).body.stats.sent).toBe(reached.length);
  });

  it('starts a scheduled campaign within 5 seconds of its time', async () => {
    const account = await newAccount(sendline.url, 'scheduler');
    await account.api('POST', '/api/contacts', { body: { email: 'sched@inbox.example' } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    const at = new Date(Date.now() + 1500);
    await account.api('POST', `/api/campaigns/${c.id}/schedule`, { body: { scheduled_at: at.toISOString() } });
    const done = await finished(account, c.id);
    expect(Date.parse(done.started_at) - at.getTime()).toBeLessThan(5000);
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(at.getTime());
    expect(sink.to('sched@inbox.example')).toHaveLength(1);
  });

  it('sends tests marked as such, counted nowhere', async () => {
    const account = await newAccount(sendline.url, 'tester');
    await account.api('POST', '/api/contacts', { body: { email: 'qa@inbox.example', first_name: 'Quinn' } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    const res = await account.api('POST', `/api/campaigns/${c.id}/test`, { body: { emails: ['qa@inbox.example', 'nobody@inbox.example'] } });
    expect(res.body).toEqual({ accepted: ['qa@inbox.example', 'nobody@inbox.example'], rejected: [] });
    const [qa] = sink.to('qa@inbox.example');
    expect(qa.mail.subject).toBe('[Test] Hello Quinn');
    expect(qa.mail.headers.get('x-sendline-test')).toBe('true');
    expect(sink.to('nobody@inbox.example')[0].mail.subject).toBe('[Test] Hello there');
    // Its unsubscribe link answers as a preview, and changes nothing.
    const unsubscribePath = /\/u\/[\w.-]+/.exec(qa.raw)![0];
    for (const init of [{}, { method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } }]) {
      const page = await fetch(`${sendline.url}${unsubscribePath}`, init);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('test message');
    }
    expect((await account.api('GET', '/api/contacts?status=subscribed')).body.data).toHaveLength(1);
    const after = await account.api('GET', `/api/campaigns/${c.id}`);
    expect(after.body).toMatchObject({ status: 'draft', stats: { recipients: 0, sent: 0 } });
    expectProblem(await account.api('POST', `/api/campaigns/${c.id}/test`, { body: { emails: Array(11).fill('a@inbox.example') } }), 400, 'validation_failed');
  });

  it('lists a message a worker is handing to the relay as sending, as the contract says', async () => {
    const account = await newAccount(sendline.url, 'in-flight');
    await account.api('POST', '/api/contacts', { body: { email: 'flight@inbox.example' } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft() });
    await account.api('POST', `/api/campaigns/${c.id}/send`);
    await finished(account, c.id);
    // The state lasts only while a batch is in flight: set it as a worker does when it claims one.
    await sendline.orm.em.getConnection().execute("update messages set status = 'sending' where campaign_id = ?", [c.id]);
    const all = await account.api('GET', `/api/campaigns/${c.id}/messages`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((m: { status: string }) => m.status)).toEqual(['sending']);
    const filtered = await account.api('GET', `/api/campaigns/${c.id}/messages?status=sending`);
    expect(filtered.body.data).toHaveLength(1);
  });

  it('fails the message of a template that would render without end, and goes on with the campaign', async () => {
    const account = await newAccount(sendline.url, 'runaway');
    await account.api('POST', '/api/contacts', { body: { email: 'loop@inbox.example' } });
    const { body: c } = await account.api('POST', '/api/campaigns', { body: draft({ content: '<p>{% for i in (1..100000000) %}x{% endfor %}</p>' }) });
    const test = await account.api('POST', `/api/campaigns/${c.id}/test`, { body: { emails: ['qa@inbox.example'] } });
    expect(test.body).toEqual({
      accepted: [],
      rejected: [{ email: 'qa@inbox.example', reason: expect.stringMatching(/^rendering failed: memory alloc limit exceeded/) }],
    });

    await account.api('POST', `/api/campaigns/${c.id}/send`);
    const done = await finished(account, c.id);
    expect(done.stats).toMatchObject({ recipients: 1, sent: 0, failed: 1 });
    const [failed] = await events(account.accountId, 'email.failed');
    expect(failed.data).toMatchObject({ email: 'loop@inbox.example', reason: expect.stringMatching(/^rendering failed: memory alloc limit exceeded/) });
    expect(sink.to('loop@inbox.example')).toHaveLength(0);
  });
});

describe('campaigns across accounts', () => {
  it('are invisible and untouchable from another account', async () => {
    const [a, b] = await Promise.all([newAccount(sendline.url, 'cmp-a'), newAccount(sendline.url, 'cmp-b')]);
    const { body: c } = await a.api('POST', '/api/campaigns', { body: draft() });
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['PUT', '', draft()],
      ['DELETE', '', undefined],
      ['POST', '/send', undefined],
      ['POST', '/pause', undefined],
      ['POST', '/cancel', undefined],
      ['POST', '/duplicate', undefined],
      ['POST', '/test', { emails: ['x@inbox.example'] }],
      ['GET', '/messages', undefined],
    ] as const) {
      expectProblem(await b.api(method, `/api/campaigns/${c.id}${path}`, body ? { body } : {}), 404, 'not_found');
    }
    expect((await b.api('GET', '/api/campaigns')).body.data).toEqual([]);
    expect((await a.api('GET', `/api/campaigns/${c.id}`)).body.status).toBe('draft');
  });
});

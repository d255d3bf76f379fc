import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, uniqueEmail, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { WebhookReceiver } from '../webhook-receiver.ts';

let sendline: Sendline;
let sink: SmtpSink;
let hooks: WebhookReceiver;
const PUBLIC_URL = 'https://mail.example.test';

beforeAll(async () => {
  [sink, hooks] = await Promise.all([new SmtpSink().start(), new WebhookReceiver().start()]);
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    SEND_RETRY_SECONDS: '1',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline?.stop();
  await Promise.all([sink?.stop(), hooks?.stop()]);
});

/** Addresses are `{email, name?}`; plain strings here are shorthand for `{email}`. */
const named = (a: unknown) => (typeof a === 'string' ? { email: a } : a);

const message = (to: unknown, overrides: Record<string, unknown> = {}) => ({
  from: { email: 'receipts@shop.example', name: 'Shop' },
  to: (Array.isArray(to) ? to : [to]).map(named),
  subject: 'Your receipt',
  html: '<html><body><p>Thanks!</p><a href="https://shop.example/orders/1">Order</a></body></html>',
  text: 'Thanks!',
  ...overrides,
});

const received = (email: string, n = 1) =>
  waitFor(() => {
    const got = sink.to(email);
    return got.length >= n ? got : undefined;
  });

const delivered = (account: TestAccount, id: string) =>
  waitFor(async () => {
    const res = await account.api('GET', `/api/emails/${id}`);
    return res.body.status === 'delivered' ? res.body : undefined;
  });

describe('POST /emails', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'emails');
  });

  it('answers 202 with an id per recipient and sends each its own copy', async () => {
    const [ada, bob, cat, dan] = ['ada', 'bob', 'cat', 'dan'].map((l) => uniqueEmail(l));
    const res = await account.api('POST', '/api/emails', {
      body: message([{ email: ada, name: 'Ada Lovelace' }, bob], {
        cc: [{ email: cat }],
        bcc: [{ email: dan }],
        reply_to: 'help@shop.example',
        tags: ['receipt'],
      }),
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => [r.email, r.kind, r.status])).toEqual([
      [ada, 'to', 'queued'],
      [bob, 'to', 'queued'],
      [cat, 'cc', 'queued'],
      [dan, 'bcc', 'queued'],
    ]);
    const ids = res.body.data.map((r: any) => r.id);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^em_/);
    for (const to of [ada, bob, cat, dan]) await received(to);
    const copy = sink.to(ada)[0];
    expect(copy.envelopeFrom).toBe(`bounces+${ids[0]}@shop.example`);
    expect(copy.mail.subject).toBe('Your receipt');
    expect(copy.mail.from?.value[0]).toMatchObject({ name: 'Shop', address: 'receipts@shop.example' });
    expect(copy.mail.to && !Array.isArray(copy.mail.to) ? copy.mail.to.value.map((a) => a.address) : []).toEqual([ada, bob]);
    expect(copy.mail.cc && !Array.isArray(copy.mail.cc) ? copy.mail.cc.value.map((a) => a.address) : []).toEqual([cat]);
    expect(copy.mail.replyTo?.text).toBe('help@shop.example');
    expect(copy.mail.text?.trim()).toBe('Thanks!');
    // Bcc shows in no copy; List-Unsubscribe is marketing's only; links stay as written without tracking.
    expect(sink.to(dan)[0].raw).not.toMatch(/^Bcc:/im);
    expect(copy.raw).not.toMatch(/^List-Unsubscribe/im);
    expect(copy.mail.html).toContain('href="https://shop.example/orders/1"');
    expect(copy.mail.html).not.toContain('/t/o/');
    const shown = await delivered(account, ids[0]);
    expect(shown).toMatchObject({ stream: 'transactional', email: ada, kind: 'to', from: 'receipts@shop.example', tags: ['receipt'], attempts: 1 });
    expect(shown.events.map((e: any) => e.type)).toEqual(['email.sent', 'email.delivered']);
  });

  it('carries attachments that mailparser reads back byte for byte', async () => {
    const to = uniqueEmail('files');
    const pdf = randomBytes(300_000);
    const res = await account.api('POST', '/api/emails', {
      body: message(to, {
        attachments: [
          { filename: 'invoice-1042.pdf', content_type: 'application/pdf', content: pdf.toString('base64') },
          { filename: 'notes ünïcode.txt', content_type: 'text/plain', content: Buffer.from('hello').toString('base64') },
        ],
      }),
    });
    expect(res.status).toBe(202);
    const [copy] = await received(to);
    expect(copy.mail.attachments.map((a) => [a.filename, a.contentType, a.size])).toEqual([
      ['invoice-1042.pdf', 'application/pdf', pdf.length],
      ['notes ünïcode.txt', 'text/plain', 5],
    ]);
    expect(copy.mail.attachments[0].content.equals(pdf)).toBe(true);
    expect(copy.mail.text?.trim()).toBe('Thanks!');
  });

  it('refuses attachments over 10 MB decoded, and content that is not base64', async () => {
    // 10.5 MB decoded fits the route's 15 MB body, raised there alone: other routes keep 1 MB.
    const big = randomBytes(5.25 * 1024 * 1024).toString('base64');
    const tooBig = await account.api('POST', '/api/emails', {
      body: message(uniqueEmail('big'), {
        attachments: [
          { filename: 'a.bin', content_type: 'application/octet-stream', content: big },
          { filename: 'b.bin', content_type: 'application/octet-stream', content: big },
        ],
      }),
    });
    expectProblem(tooBig, 400, 'validation_failed');
    expect(tooBig.body.errors).toEqual([{ pointer: '/attachments', detail: expect.stringContaining('at most 10485760') }]);
    const notBase64 = await account.api('POST', '/api/emails', {
      body: message(uniqueEmail('b64'), { attachments: [{ filename: 'a.txt', content_type: 'text/plain', content: 'not base64!' }] }),
    });
    expectProblem(notBase64, 400, 'validation_failed');
    expect(notBase64.body.errors[0].pointer).toBe('/attachments/0/content');
    expectProblem(
      await account.api('POST', '/api/contacts', { body: { email: uniqueEmail('big'), attributes: { note: big.slice(0, 2 * 1024 * 1024) } } }),
      413,
      'payload_too_large',
    );
  });

  it('refuses header injection and headers Sendline writes, with the pointer', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ headers: { 'X-Order': '1042\r\nBcc: victim@example.com' } }, '/headers/X-Order'],
      [{ headers: { 'Message-ID': '<forged@example.com>' } }, '/headers/Message-ID'],
      [{ headers: { 'list-unsubscribe': '<https://x.example>' } }, '/headers/list-unsubscribe'],
      [{ headers: { 'DKIM-Signature': 'v=1' } }, '/headers/DKIM-Signature'],
      [{ headers: { 'Bad Name': 'x' } }, '/headers/Bad Name'],
      [{ subject: 'Hi\r\nBcc: victim@example.com' }, '/subject'],
      [{ from: { email: 'receipts@shop.example', name: 'Shop\nBcc: victim@example.com' } }, '/from/name'],
    ];
    for (const [overrides, pointer] of cases) {
      const res = await account.api('POST', '/api/emails', { body: message(uniqueEmail('inject'), overrides) });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors.map((e: any) => e.pointer)).toContain(pointer);
    }
    const to = uniqueEmail('custom');
    const ok = await account.api('POST', '/api/emails', { body: message(to, { headers: { 'X-Order': '1042', 'In-Reply-To': '<a@b.example>' } }) });
    expect(ok.status).toBe(202);
    const [copy] = await received(to);
    expect(copy.mail.headers.get('x-order')).toBe('1042');
  });

  it('refuses a request without html or text, over 50 recipients, or scheduled beyond 72 hours', async () => {
    expectProblem(
      await account.api('POST', '/api/emails', { body: message(uniqueEmail('x'), { html: undefined, text: undefined }) }),
      400,
      'validation_failed',
    );
    const many = Array.from({ length: 51 }, (_, i) => `r${i}@example.com`);
    expectProblem(await account.api('POST', '/api/emails', { body: message(many) }), 400, 'validation_failed');
    const late = await account.api('POST', '/api/emails', {
      body: message(uniqueEmail('late'), { scheduled_at: new Date(Date.now() + 73 * 3600_000).toISOString() }),
    });
    expectProblem(late, 400, 'validation_failed');
    expect(late.body.errors[0].pointer).toBe('/scheduled_at');
  });

  it('tracks opens and clicks when asked, with tags and metadata in the events', async () => {
    const to = uniqueEmail('tracked');
    const res = await account.api('POST', '/api/emails', {
      body: message(to, { track_opens: true, track_clicks: true, tags: ['reset'], metadata: { user_id: 'u_42' } }),
    });
    const id = res.body.data[0].id;
    const [copy] = await received(to);
    expect(copy.raw).not.toMatch(/^List-Unsubscribe/im);
    const click = /href="(https:\/\/mail\.example\.test\/t\/c\/[^"]+)"/.exec(copy.mail.html as string)![1];
    const pixel = /src="(https:\/\/mail\.example\.test\/t\/o\/[^"]+)"/.exec(copy.mail.html as string)![1];
    const base = sendline.url;
    expect((await fetch(base + new URL(pixel).pathname)).status).toBe(200);
    const redirect = await fetch(base + new URL(click).pathname, { redirect: 'manual' });
    expect(redirect.headers.get('location')).toBe('https://shop.example/orders/1');
    const shown = await waitFor(async () => {
      const r = await account.api('GET', `/api/emails/${id}`);
      return r.body.clicked_at && r.body.opened_at ? r.body : undefined;
    });
    const clicked = shown.events.find((e: any) => e.type === 'email.clicked');
    expect(clicked.data).toMatchObject({
      message_id: id,
      campaign_id: null,
      stream: 'transactional',
      tags: ['reset'],
      metadata: { user_id: 'u_42' },
      first_click: true,
    });
  });
});

describe('scheduled emails', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'scheduled');
  });

  it('sends at the scheduled time, and a cancelled one never', async () => {
    const [kept, dropped] = [uniqueEmail('kept'), uniqueEmail('dropped')];
    const at = new Date(Date.now() + 2500).toISOString();
    const a = await account.api('POST', '/api/emails', { body: message(kept, { scheduled_at: at }) });
    const b = await account.api('POST', '/api/emails', { body: message(dropped, { scheduled_at: at }) });
    expect(a.body.data[0].status).toBe('scheduled');
    const cancelled = await account.api('POST', `/api/emails/${b.body.data[0].id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', scheduled_at: at });
    expect(sink.to(kept)).toHaveLength(0);
    const [copy] = await received(kept);
    expect(copy.mail.subject).toBe('Your receipt');
    await new Promise((r) => setTimeout(r, 500));
    expect(sink.to(dropped)).toHaveLength(0);
    // Sent or cancelled already: no longer scheduled.
    expectProblem(await account.api('POST', `/api/emails/${a.body.data[0].id}/cancel`), 409, 'invalid_state_transition');
    expectProblem(await account.api('POST', `/api/emails/${b.body.data[0].id}/cancel`), 409, 'invalid_state_transition');
  });
});

describe('the transactional stream', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'stream');
  });

  it('sends to unsubscribed contacts and refuses bounced or complained addresses one by one, with the reason', async () => {
    const [unsubscribed, bounced, complained, fresh] = ['unsub', 'bounced', 'complained', 'fresh'].map((l) => uniqueEmail(l));
    for (const [email, status] of [
      [unsubscribed, 'unsubscribed'],
      [bounced, 'bounced'],
      [complained, 'complained'],
    ]) {
      expect((await account.api('POST', '/api/contacts', { body: { email, status } })).status).toBe(201);
    }
    const res = await account.api('POST', '/api/emails', { body: message([unsubscribed, bounced, complained, fresh]) });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => [r.email, r.status, r.reason])).toEqual([
      [unsubscribed, 'queued', null],
      [bounced, 'refused', 'bounced'],
      [complained, 'refused', 'complained'],
      [fresh, 'queued', null],
    ]);
    expect(res.body.data[1].id).toBeNull();
    await received(unsubscribed);
    await received(fresh);
    expect(sink.to(bounced)).toHaveLength(0);
    expect(sink.to(complained)).toHaveLength(0);
  });

  it("judges each recipient by its own account's records when concurrent requests share a statement", async () => {
    const other = await newAccount(sendline.url, 'stream-other');
    const shared = uniqueEmail('shared');
    expect((await account.api('POST', '/api/contacts', { body: { email: shared, status: 'bounced' } })).status).toBe(201);
    const sends = Array.from({ length: 24 }, (_, i) => (i % 2 ? account : other).api('POST', '/api/emails', { body: message(shared) }));
    const answers = await Promise.all(sends);
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(202);
      expect([res.body.data[0].status, res.body.data[0].reason]).toEqual(i % 2 ? ['refused', 'bounced'] : ['queued', null]);
    }
    await received(shared, 12);
    const listed = await other.api('GET', `/api/emails?to=${encodeURIComponent(shared)}&limit=100`);
    expect(listed.body.data).toHaveLength(12);
    expect((await account.api('GET', `/api/emails?to=${encodeURIComponent(shared)}`)).body.data).toEqual([]);
  });

  it('a hard bounce refuses the address next time, contact or not', async () => {
    const gone = uniqueEmail('gone');
    sink.rejectHard.add(gone.toLowerCase());
    const first = await account.api('POST', '/api/emails', { body: message(gone, { metadata: { order: '7' } }) });
    const id = first.body.data[0].id;
    const shown = await waitFor(async () => {
      const r = await account.api('GET', `/api/emails/${id}`);
      return r.body.status === 'bounced' ? r.body : undefined;
    });
    expect(shown.reason).toContain('No such user');
    expect(shown.events.map((e: any) => e.type)).toEqual(['email.bounced']);
    expect(shown.events[0].data).toMatchObject({ bounce_type: 'hard', metadata: { order: '7' } });
    const again = await account.api('POST', '/api/emails', { body: message(gone) });
    expect(again.body.data[0]).toMatchObject({ status: 'refused', reason: 'bounced', id: null });
  });
});

describe('bounces and complaints reported later', () => {
  it('mark the message, suppress the address for the stream, and carry its metadata', async () => {
    const account = await newAccount(sendline.url, 'reports');
    const [complainer, bouncer] = [uniqueEmail('complainer'), uniqueEmail('bouncer')];
    const res = await account.api('POST', '/api/emails', { body: message([complainer, bouncer], { metadata: { ticket: 'T-9' } }) });
    const [complained, bounced] = res.body.data.map((r: any) => r.id);
    await delivered(account, complained);
    await delivered(account, bounced);
    const complaint = await account.api('POST', '/api/tracking/bounces', { body: { message_id: complained, type: 'complaint' } });
    expect(complaint.status).toBe(201);
    const dsn = await account.api('POST', '/api/tracking/bounces', { body: { message_id: bounced, type: 'hard', reason: 'mailbox gone' } });
    expect(dsn.status).toBe(201);
    const shown = await account.api('GET', `/api/emails/${bounced}`);
    expect(shown.body).toMatchObject({ status: 'bounced', reason: 'mailbox gone' });
    expect(shown.body.events.at(-1)).toMatchObject({ type: 'email.bounced', data: { metadata: { ticket: 'T-9' }, stream: 'transactional' } });
    const complainedShown = await account.api('GET', `/api/emails/${complained}`);
    expect(complainedShown.body.events.at(-1)).toMatchObject({ type: 'email.complained', data: { metadata: { ticket: 'T-9' } } });
    const again = await account.api('POST', '/api/emails', { body: message([complainer, bouncer]) });
    expect(again.body.data.map((r: any) => [r.status, r.reason])).toEqual([
      ['refused', 'complained'],
      ['refused', 'bounced'],
    ]);
    // Another account cannot report on these messages.
    const stranger = await newAccount(sendline.url, 'reports-stranger');
    expectProblem(await stranger.api('POST', '/api/tracking/bounces', { body: { message_id: bounced, type: 'hard' } }), 404, 'not_found');
  });
});

describe('POST /emails/batch', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'batch');
  });

  it('accepts or refuses each item on its own', async () => {
    const [a, b] = [uniqueEmail('batch-a'), uniqueEmail('batch-b')];
    const res = await account.api('POST', '/api/emails/batch', {
      body: {
        emails: [
          message(a),
          message('not an address'),
          message(b, { headers: { From: 'evil@example.com' } }),
          { ...message(b), unknown_field: 1 },
          message(b, { text: 'second' }),
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => [r.index, r.status])).toEqual([
      [0, 'accepted'],
      [1, 'refused'],
      [2, 'refused'],
      [3, 'refused'],
      [4, 'accepted'],
    ]);
    expect(res.body.data[1].error.errors[0].pointer).toBe('/to/0/email');
    expect(res.body.data[2].error.errors[0].pointer).toBe('/headers/From');
    expect(res.body.data[3].error.errors[0].pointer).toBe('/unknown_field');
    await received(a);
    const [copy] = await received(b);
    expect(copy.mail.text?.trim()).toBe('second');
  });

  it('refuses more than 500 items as a whole', async () => {
    const res = await account.api('POST', '/api/emails/batch', { body: { emails: Array.from({ length: 501 }, () => message('x@example.com')) } });
    expectProblem(res, 400, 'validation_failed');
  });
});

describe('emails from a template', () => {
  let account: TestAccount;
  let other: TestAccount;
  let templateId: string;
  beforeAll(async () => {
    [account, other] = await Promise.all([newAccount(sendline.url, 'email-templates'), newAccount(sendline.url, 'email-templates-other')]);
    const created = await account.api('POST', '/api/templates', {
      body: { name: 'receipt', subject: 'Receipt {{ order }}', html: '<p>Order {{ order }} for {{ customer }}</p>', text: 'Order {{ order }}' },
    });
    expect(created.status).toBe(201);
    templateId = created.body.id;
    expect((await account.api('POST', `/api/templates/${templateId}/publish`)).status).toBe(201);
    // A later draft is not what emails send: the published version is.
    await account.api('PATCH', `/api/templates/${templateId}`, { body: { subject: 'Draft {{ order }}' } });
  });
  const { subject: _s, html: _h, text: _t, ...bare } = message('x@example.com');

  it('renders the published version once with data for every recipient', async () => {
    const [ada, bob] = [uniqueEmail('tpl-ada'), uniqueEmail('tpl-bob')];
    const res = await account.api('POST', '/api/emails', {
      body: { ...bare, to: [{ email: ada }, { email: bob }], template_id: templateId, data: { order: 1042, customer: 'Ada' } },
    });
    expect(res.status).toBe(202);
    for (const to of [ada, bob]) {
      const [copy] = await received(to);
      expect(copy.mail.subject).toBe('Receipt 1042');
      expect(copy.mail.html).toContain('Order 1042 for Ada');
    }
  });

  it('refuses content beside a template, a template of another account, and data without one', async () => {
    const send = (body: Record<string, unknown>, who = account) => who.api('POST', '/api/emails', { body: { ...bare, ...body } });
    const both = await send({ template_id: templateId, subject: 'Mine' });
    expectProblem(both, 400, 'validation_failed');
    expect(both.body.errors[0].pointer).toBe('/subject');
    expectProblem(await send({ template_id: templateId }, other), 400, 'validation_failed');
    expectProblem(await send({ template_id: templateId, template_version: 7 }), 400, 'validation_failed');
    const orphan = await send({ data: { order: 1 }, html: '<p>x</p>', subject: 'x' });
    expect(orphan.body.errors[0].pointer).toBe('/data');
    const bare2 = await send({ html: '<p>x</p>' });
    expect(bare2.body.errors[0].pointer).toBe('/subject');
  });

  it('refuses a batch item with a template of another account, alone', async () => {
    const ada = uniqueEmail('tpl-batch');
    const res = await other.api('POST', '/api/emails/batch', {
      body: { emails: [{ ...bare, to: [{ email: ada }], template_id: templateId }, { ...message(ada) }] },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => r.status)).toEqual(['refused', 'accepted']);
    expect(res.body.data[0].error.errors[0].pointer).toBe('/template_id');
  });
});

describe('GET /emails', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'listing');
  });

  it('lists newest first with filters and keyset pages', async () => {
    const target = uniqueEmail('listed');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await account.api('POST', '/api/emails', { body: message([target], { tags: i === 1 ? ['special'] : ['plain'] }) });
      ids.push(res.body.data[0].id);
    }
    await account.api('POST', '/api/emails', { body: message(uniqueEmail('other')) });
    const byTo = await account.api('GET', `/api/emails?to=${encodeURIComponent(target.toUpperCase())}`);
    expect(byTo.body.data.map((e: any) => e.id)).toEqual([...ids].reverse());
    const byTag = await account.api('GET', '/api/emails?tag=special');
    expect(byTag.body.data.map((e: any) => e.id)).toEqual([ids[1]]);
    const first = await account.api('GET', `/api/emails?to=${encodeURIComponent(target)}&limit=2`);
    expect(first.body.has_more).toBe(true);
    const second = await account.api('GET', `/api/emails?to=${encodeURIComponent(target)}&limit=2&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((e: any) => e.id)).toEqual([...ids].reverse());
    expect(second.body.has_more).toBe(false);
    const future = await account.api('GET', `/api/emails?created_after=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
    expect(future.body.data).toEqual([]);
    await waitFor(async () => (await account.api('GET', '/api/emails?status=delivered')).body.data.length === 4);
  });
});

describe('webhook events', () => {
  it('carry the message metadata and tags', async () => {
    const account = await newAccount(sendline.url, 'hooks');
    const hook = await account.api('POST', '/api/webhooks', { body: { url: hooks.url, events: ['email.*'] } });
    expect(hook.status).toBe(201);
    const res = await account.api('POST', '/api/emails', { body: message(uniqueEmail('hooked'), { tags: ['welcome'], metadata: { plan: 'pro' } }) });
    const id = res.body.data[0].id;
    const event = await waitFor(() => hooks.events('email.delivered').find((e) => e.data.message_id === id));
    expect(event.account_id).toBe(account.accountId);
    expect(event.data).toMatchObject({ stream: 'transactional', campaign_id: null, tags: ['welcome'], metadata: { plan: 'pro' } });
  });
});

describe('tenant isolation', () => {
  it('another account sees, lists and cancels none of the emails', async () => {
    const [owner, stranger] = await Promise.all([newAccount(sendline.url, 'iso-owner'), newAccount(sendline.url, 'iso-stranger')]);
    const res = await owner.api('POST', '/api/emails', {
      body: message(uniqueEmail('private'), { scheduled_at: new Date(Date.now() + 3600_000).toISOString() }),
    });
    const id = res.body.data[0].id;
    expectProblem(await stranger.api('GET', `/api/emails/${id}`), 404, 'not_found');
    expectProblem(await stranger.api('POST', `/api/emails/${id}/cancel`), 404, 'not_found');
    expect((await stranger.api('GET', '/api/emails')).body.data).toEqual([]);
    expect((await owner.api('GET', `/api/emails/${id}`)).body.status).toBe('scheduled');
    // A bounced contact of one account refuses nothing in another.
    const shared = uniqueEmail('shared');
    await stranger.api('POST', '/api/contacts', { body: { email: shared, status: 'bounced' } });
    const sent = await owner.api('POST', '/api/emails', { body: message(shared) });
    expect(sent.body.data[0].status).toBe('queued');
    expect((await owner.api('POST', `/api/emails/${id}/cancel`)).status).toBe(200);
  });
});

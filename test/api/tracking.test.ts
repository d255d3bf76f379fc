import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
const PUBLIC_URL = 'https://mail.example.test';
const HUMAN_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    PUBLIC_URL,
    TRACKING_FLUSH_MS: '50',
    TRACKING_MACHINE_OPEN_SECONDS: '0',
    BOUNCE_SMTP_PORT: '0',
    BOUNCE_SMTP_HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
});
afterAll(async () => {
  await sendline.stop();
  await sink.stop();
});

const sql = (text: string, params: unknown[] = []) => sendline.pool.query(text, params).then((r) => r.rows);

interface Sent {
  messageId: string;
  contactId: string;
  email: string;
  pixel: string;
  clicks: string[];
  unsubscribe: string;
}

/** Sends a campaign to new contacts and answers each recipient's tracking links (as local paths). */
async function sendCampaign(account: TestAccount, emails: string[], tag: string) {
  for (const email of emails) {
    const res = await account.api('POST', '/api/contacts', { body: { email, first_name: 'Ada', tags: [tag] } });
    if (res.status !== 201 && res.status !== 409) throw new Error(JSON.stringify(res.body));
  }
  const { body: campaign } = await account.api('POST', '/api/campaigns', {
    body: {
      name: `Tracked ${tag}`,
      subject: 'News',
      from_email: 'news@shop.example',
      content: '<p>Hi</p><a href="https://shop.example/a">A</a> <a href="https://shop.example/b?x=1">B</a>',
      audience: { tags_any: [tag] },
    },
  });
  await account.api('POST', `/api/campaigns/${campaign.id}/send`);
  await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
  const messages = await sql('select id, contact_id, email from messages where campaign_id = $1 order by email', [campaign.id]);
  const local = (url: string) => url.replace(PUBLIC_URL, '');
  const sent: Sent[] = messages.map((m) => {
    const mail = sink.received.find((r) => r.mail.headers.get('x-sendline-message') === m.id)!;
    const html = String(mail.mail.html);
    return {
      messageId: m.id,
      contactId: m.contact_id,
      email: m.email,
      pixel: local(/src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]),
      clicks: [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((x) => local(x[1].replace(/&amp;/g, '&'))),
      unsubscribe: local(/href="([^"]+\/u\/[^"]+)"/.exec(html)![1]),
    };
  });
  return { campaign, sent };
}

const hit = (path: string, init: RequestInit = {}) =>
  fetch(sendline.url + path, { redirect: 'manual', ...init, headers: { 'user-agent': HUMAN_AGENT, ...(init.headers ?? {}) } });
const events = (accountId: string, type: string) =>
  sql('select data from events where account_id = $1 and type = $2 order by seq', [accountId, type]).then((rows) => rows.map((r) => r.data));

describe('open pixel and clicks', () => {
  let account: TestAccount;
  let sent: Sent[];
  let campaignId: string;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'tracker');
    const run = await sendCampaign(account, ['open-1@example.com', 'open-2@example.com', 'open-3@example.com'], 'opens');
    sent = run.sent;
    campaignId = run.campaign.id;
  });

  it('answers a GIF that is never cached and records every open, the first one flagged', async () => {
    const [a] = sent;
    for (let i = 0; i < 2; i++) {
      // Without TRUST_PROXY a forwarded address is the client's say, not the address recorded.
      const res = await hit(a.pixel, { headers: { 'x-forwarded-for': '198.51.100.7' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('cache-control')).toContain('no-store');
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 6)
          .toString(),
      ).toBe('GIF89a');
    }
    const opened = await waitFor(async () => {
      const list = await events(account.accountId, 'email.opened');
      return list.length === 2 && list;
    });
    expect(opened.map((e) => e.first_open)).toEqual([true, false]);
    expect(opened[0]).toMatchObject({ message_id: a.messageId, campaign_id: campaignId, machine: false, user_agent: HUMAN_AGENT });
    const list = await account.api('GET', `/api/tracking/opens?campaign_id=${campaignId}`);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data[0]).toMatchObject({ email: a.email, contact_id: a.contactId, machine: false, ip: '127.0.0.0' });
  });

  it('reads the pixel path without its query string; without `.gif` it is not the pixel', async () => {
    const [a] = sent;
    const opens = async () => (await sql('select count(*)::int as n from opens where message_id = $1', [a.messageId])).at(0)!.n;
    const before = await opens();
    const res = await hit(`${a.pixel}?utm_source=newsletter&x=.gif`);
    expect(res.headers.get('content-type')).toBe('image/gif');
    await waitFor(async () => (await opens()) === before + 1);
    expect((await hit(a.pixel.replace('.gif', ''))).status).toBe(404);
  });

  it('gives a forged or altered token the GIF and records nothing', async () => {
    // The account's opens: other test files record theirs in the same database meanwhile.
    const opens = async () => (await sql('select count(*)::int as n from opens where account_id = $1', [account.accountId])).at(0)!.n;
    const before = await opens();
    const [, b] = sent;
    const [payload, mac] = b.pixel.replace('/t/o/', '').replace('.gif', '').split('.');
    const otherMessage = Buffer.from(JSON.stringify(['o', sent[2].messageId])).toString('base64url');
    const overlong = `/t/o/${payload}${'A'.repeat(300)}.${mac}.gif`;
    for (const path of [`/t/o/${otherMessage}.${mac}.gif`, `/t/o/${payload}.AAAA${mac.slice(4)}.gif`, '/t/o/garbage.gif', overlong]) {
      const res = await hit(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(await opens()).toBe(before);
  });

  it('flags opens from privacy proxies and scanners as machine opens', async () => {
    const [, , c] = sent;
    await hit(c.pixel, { headers: { 'user-agent': 'Mozilla/5.0' } });
    const [row] = await waitFor(
      async () =>
        (await sql('select machine, is_first, is_first_human from opens where message_id = $1', [c.messageId])).length === 1 &&
        sql('select machine, is_first, is_first_human from opens where message_id = $1', [c.messageId]),
    );
    expect(row).toEqual({ machine: true, is_first: true, is_first_human: false });
  });

  it('flags an open within the machine window of its sending, and counts a reader after it', async () => {
    const [, , c] = sent;
    const opens = () => sql('select machine, is_first_human from opens where message_id = $1 order by occurred_at, id', [c.messageId]);
    const nextOpen = async (count: number) => (await waitFor(async () => (await opens()).length === count + 1 && opens())).at(-1);
    const before = (await opens()).length;
    // This server's window is 0 s: only an open before the sending time falls in it.
    await sql(`update messages set sent_at = now() + interval '1 minute' where id = $1`, [c.messageId]);
    await hit(c.pixel, { headers: { 'user-agent': HUMAN_AGENT } });
    expect(await nextOpen(before)).toEqual({ machine: true, is_first_human: false });
    await sql(`update messages set sent_at = now() - interval '1 minute' where id = $1`, [c.messageId]);
    await hit(c.pixel, { headers: { 'user-agent': HUMAN_AGENT } });
    expect(await nextOpen(before + 1)).toEqual({ machine: false, is_first_human: true });
  });

  it('redirects a click to the signed link, and a click without an open counts one', async () => {
    const [, b] = sent;
    const res = await hit(b.clicks[1]);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://shop.example/b?x=1');
    const clicked = await waitFor(async () => (await events(account.accountId, 'email.clicked')).find((e) => e.message_id === b.messageId));
    expect(clicked).toMatchObject({ url: 'https://shop.example/b?x=1', first_click: true });
    const opens = await sql('select is_first from opens where message_id = $1', [b.messageId]);
    expect(opens).toEqual([{ is_first: true }]);
    const list = await account.api('GET', `/api/tracking/clicks?url=${encodeURIComponent('https://shop.example/b?x=1')}`);
    expect(list.body.data).toEqual([expect.objectContaining({ email: b.email, url: 'https://shop.example/b?x=1', campaign_id: campaignId })]);
  });

  it('never redirects where the token did not sign: altered tokens get a 404 page', async () => {
    const [a] = sent;
    const [payload, mac] = a.clicks[0].replace('/t/c/', '').split('.');
    const evil = Buffer.from(JSON.stringify(['c', a.messageId, '0', 'https://evil.example/'])).toString('base64url');
    for (const path of [`/t/c/${evil}.${mac}`, `/t/c/${payload}.${mac.slice(0, -2)}xx`, `/t/c/${payload}`, '/t/c/https%3A%2F%2Fevil.example']) {
      const res = await hit(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-type')).toContain('text/html');
    }
    // An open token is not a click token.
    expect((await hit(a.pixel.replace('/t/o/', '/t/c/').replace('.gif', ''))).status).toBe(404);
  });

  it('takes a token in one spelling only: another last character with the same bytes gets a 404 page', async () => {
    const [a] = sent;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    // A 16-byte MAC's last base64url character carries two bits; its other four are unused.
    const last = a.clicks[0].at(-1)!;
    const respelled = a.clicks[0].slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1];
    expect(Buffer.from(respelled.split('.').at(-1)!, 'base64url')).toEqual(Buffer.from(a.clicks[0].split('.').at(-1)!, 'base64url'));
    expect((await hit(respelled)).status).toBe(404);
    expect((await hit(a.clicks[0])).status).toBe(302);
  });

  // The bulk tables have no foreign keys (a per-row check cost a quarter of their writes); the
  // parents' delete triggers cascade instead.
  it('deleting a contact keeps its messages and emails without it; deleting a campaign removes its messages, opens and clicks, and keeps its conversions', async () => {
    const other = await newAccount(sendline.url, 'cascade');
    const { campaign, sent: mine } = await sendCampaign(other, ['cascade-1@example.com', 'cascade-2@example.com'], 'cascade');
    await hit(mine[0].pixel);
    await hit(mine[0].clicks[0]);
    await waitFor(async () => (await sql('select 1 from clicks where campaign_id = $1', [campaign.id])).length === 1);

    const email = await other.api('POST', '/api/emails', {
      body: { from: { email: 'shop@example.com' }, to: [{ email: 'cascade-2@example.com' }], subject: 'Receipt', text: 'Thanks' },
    });
    const emailContact = () => sql('select contact_id from emails where id = $1', [email.body.data[0].id]);
    expect(await emailContact()).toEqual([{ contact_id: mine[1].contactId }]);
    const conversion = await other.api('POST', '/api/conversions', { body: { contact_id: mine[0].contactId, type: 'signup', campaign_id: campaign.id } });
    expect(conversion.body.campaign_id).toBe(campaign.id);

    expect((await other.api('DELETE', `/api/contacts/${mine[1].contactId}`)).status).toBe(204);
    expect(await sql('select contact_id from messages where id = $1', [mine[1].messageId])).toEqual([{ contact_id: null }]);
    expect(await emailContact()).toEqual([{ contact_id: null }]);

    expect((await other.api('DELETE', `/api/campaigns/${campaign.id}`)).status).toBe(204);
    expect(await sql('select campaign_id from conversions where id = $1', [conversion.body.id])).toEqual([{ campaign_id: null }]);
    const left = await sql(
      'select (select count(*) from messages where campaign_id = $1)::int as messages, (select count(*) from opens where campaign_id = $1)::int as opens, (select count(*) from clicks where campaign_id = $1)::int as clicks',
      [campaign.id],
    );
    expect(left).toEqual([{ messages: 0, opens: 0, clicks: 0 }]);
    // The other campaign of this file is untouched.
    expect((await sql('select count(*)::int as n from messages where campaign_id = $1', [campaignId]))[0].n).toBe(3);
  });
});

describe('unsubscribe (RFC 8058)', () => {
  let account: TestAccount;
  let sent: Sent[];
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'unsub');
    ({ sent } = await sendCampaign(account, ['leave@example.com', 'stay@example.com'], 'unsub'));
  });

  it('GET shows a confirmation page and unsubscribes nobody', async () => {
    const res = await hit(sent[0].unsubscribe);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('leave@example.com');
    expect(html).toContain('<form method="post">');
    const contact = await account.api('GET', `/api/contacts/${sent[0].contactId}`);
    expect(contact.body.status).toBe('subscribed');
  });

  it('a POST without List-Unsubscribe=One-Click changes nothing', async () => {
    const res = await hit(sent[0].unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'x=1' });
    expect(res.status).toBe(400);
    expect((await account.api('GET', `/api/contacts/${sent[0].contactId}`)).body.status).toBe('subscribed');
  });

  it('one-click POST unsubscribes at once, without cookies or redirects, and only once', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await hit(sent[0].unsubscribe, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('location')).toBeNull();
    }
    const contact = await account.api('GET', `/api/contacts/${sent[0].contactId}`);
    expect(contact.body).toMatchObject({ status: 'unsubscribed' });
    const unsubscribed = await events(account.accountId, 'email.unsubscribed');
    expect(unsubscribed).toEqual([expect.objectContaining({ message_id: sent[0].messageId, source: 'one_click' })]);
    expect(await events(account.accountId, 'contact.suppressed')).toHaveLength(1);
  });

  it('multipart one-click posts work too, and the next campaign leaves the contact out', async () => {
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    expect((await hit(sent[1].unsubscribe, { method: 'POST', body: form })).status).toBe(200);
    expect((await account.api('GET', `/api/contacts/${sent[1].contactId}`)).body.status).toBe('unsubscribed');
    const { campaign } = await sendCampaign(account, ['fresh@example.com'], 'unsub');
    const recipients = await sql('select email from messages where campaign_id = $1', [campaign.id]);
    expect(recipients).toEqual([{ email: 'fresh@example.com' }]);
  });
});

function fixture(name: string, values: Record<string, string>): string {
  const text = readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (_, key) => values[key]);
}

async function mailReport(raw: string, to: string): Promise<void> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sendline.bounceSmtpPort!, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    transport.close();
  }
}

describe('bounces and complaints by mail', () => {
  let account: TestAccount;
  let sent: Sent[];
  let campaignId: string;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'bounces');
    const run = await sendCampaign(account, ['gone@example.net', 'flaky@example.net', 'angry@example.net'], 'bnc');
    sent = run.sent;
    campaignId = run.campaign.id;
  });

  const values = (s: Sent, status: string, code: string) => ({
    RETURN_PATH: `bounces+${s.messageId}@shop.example`,
    RECIPIENT: s.email,
    MESSAGE_ID: s.messageId,
    STATUS: status,
    CODE: code,
  });

  it('a hard DSN to the VERP address bounces the message and the contact', async () => {
    const [, , gone] = sent.sort((a, b) => a.email.localeCompare(b.email));
    const v = values(gone, '5.1.1', '550');
    await mailReport(fixture('dsn-postfix.eml', v), v.RETURN_PATH);
    const contact = await account.api('GET', `/api/contacts/${gone.contactId}`);
    expect(contact.body.status).toBe('bounced');
    const list = await account.api('GET', `/api/tracking/bounces?campaign_id=${campaignId}`);
    expect(list.body.data[0]).toMatchObject({
      email: gone.email,
      type: 'hard',
      contact_id: gone.contactId,
      diagnostic_code: expect.stringContaining('550 5.1.1'),
    });
    expect(await events(account.accountId, 'email.bounced')).toEqual([expect.objectContaining({ message_id: gone.messageId, bounce_type: 'hard' })]);
    expect((await account.api('GET', `/api/campaigns/${campaignId}`)).body.stats.bounced).toBe(1);
  });

  it('three soft DSNs in a row bounce the contact; the first two do not', async () => {
    const flaky = sent.find((s) => s.email.startsWith('flaky'))!;
    const v = values(flaky, '4.2.2', '452');
    for (let i = 1; i <= 3; i++) {
      // Matched through the returned headers this time: the envelope names no message.
      await mailReport(fixture('dsn-postfix.eml', v), 'postmaster@shop.example');
      const status = (await account.api('GET', `/api/contacts/${flaky.contactId}`)).body.status;
      expect(status).toBe(i < 3 ? 'subscribed' : 'bounced');
    }
    const soft = await account.api('GET', `/api/tracking/bounces?type=soft`);
    expect(soft.body.data).toHaveLength(3);
  });

  it('an ARF abuse report marks the contact complained', async () => {
    const angry = sent.find((s) => s.email.startsWith('angry'))!;
    await mailReport(fixture('arf-complaint.eml', values(angry, '', '')), 'fbl@shop.example');
    expect((await account.api('GET', `/api/contacts/${angry.contactId}`)).body.status).toBe('complained');
    expect(await events(account.accountId, 'email.complained')).toEqual([expect.objectContaining({ message_id: angry.messageId, feedback_type: 'abuse' })]);
    expect((await account.api('GET', `/api/campaigns/${campaignId}`)).body.stats.complained).toBe(1);
  });

  it('mail that is no report, or about no message of ours, is dropped', async () => {
    const bounces = async () =>
      (await sql("select count(*)::int as n from bounces where account_id = $1 or message_id = 'msg_0000000000000000000000'", [account.accountId])).at(0)!.n;
    const before = await bounces();
    await mailReport('From: a@example.org\r\nSubject: hi\r\n\r\nhello\r\n', 'postmaster@shop.example');
    await mailReport(
      fixture('dsn-postfix.eml', {
        ...values(sent[0], '5.1.1', '550'),
        MESSAGE_ID: 'msg_0000000000000000000000',
        RETURN_PATH: 'bounces+msg_0000000000000000000000@shop.example',
      }),
      'bounces+msg_0000000000000000000000@shop.example',
    );
    expect(await bounces()).toBe(before);
  });

  it('refuses a report over 2 MB with 552', async () => {
    const huge = fixture('dsn-postfix.eml', values(sent[0], '5.1.1', '550')) + `\r\n${'x'.repeat(76)}\r\n`.repeat(40_000);
    await expect(mailReport(huge, 'postmaster@shop.example')).rejects.toMatchObject({ responseCode: 552 });
  });
});

describe('bounces reported through the API', () => {
  it("records by message id or by email, for the caller's account only", async () => {
    const owner = await newAccount(sendline.url, 'relay');
    const other = await newAccount(sendline.url, 'stranger');
    const { sent } = await sendCampaign(owner, ['relay-1@example.org', 'relay-2@example.org'], 'relay');
    const foreign = await other.api('POST', '/api/tracking/bounces', { body: { message_id: sent[0].messageId, type: 'hard' } });
    expectProblem(foreign, 404, 'not_found');
    expect((await owner.api('GET', `/api/contacts/${sent[0].contactId}`)).body.status).toBe('subscribed');

    const byId = await owner.api('POST', '/api/tracking/bounces', {
      body: { message_id: sent[0].messageId, type: 'hard', reason: 'mailbox gone', diagnostic_code: 'smtp; 550 5.1.1', occurred_at: '2026-11-20T10:00:00Z' },
    });
    expect(byId.status).toBe(201);
    expect(byId.body).toMatchObject({ type: 'hard', reason: 'mailbox gone', email: sent[0].email, occurred_at: '2026-11-20T10:00:00.000Z' });
    const byEmail = await owner.api('POST', '/api/tracking/bounces', { body: { email: sent[1].email.toUpperCase(), type: 'complaint' } });
    expect(byEmail.status).toBe(201);
    expect((await owner.api('GET', `/api/contacts/${sent[1].contactId}`)).body.status).toBe('complained');
    expectProblem(await owner.api('POST', '/api/tracking/bounces', { body: { type: 'hard' } }), 400, 'validation_failed');
    expectProblem(await owner.api('POST', '/api/tracking/bounces', { body: { email: 'nobody@example.org', type: 'hard' } }), 404, 'not_found');
    expect((await other.api('GET', '/api/tracking/bounces')).body.data).toEqual([]);
  });
});

describe('feedback reported more than once', () => {
  it('counts a message bounced or complained once, alike in its stats and in analytics', async () => {
    const account = await newAccount(sendline.url, 'twice');
    const { campaign, sent } = await sendCampaign(account, ['twice-1@example.net', 'twice-2@example.net'], 'twice');
    const [gone, angry] = sent.sort((a, b) => a.email.localeCompare(b.email));
    const v = { RETURN_PATH: `bounces+${gone.messageId}@shop.example`, RECIPIENT: gone.email, MESSAGE_ID: gone.messageId, STATUS: '5.1.1', CODE: '550' };
    // The same hard bounce by DSN, then by the API (by message and by address), then by DSN again.
    await mailReport(fixture('dsn-postfix.eml', v), v.RETURN_PATH);
    expect((await account.api('POST', '/api/tracking/bounces', { body: { message_id: gone.messageId, type: 'hard', reason: 'mailbox gone' } })).status).toBe(
      201,
    );
    expect((await account.api('POST', '/api/tracking/bounces', { body: { email: gone.email, type: 'hard' } })).status).toBe(201);
    await mailReport(fixture('dsn-postfix.eml', v), v.RETURN_PATH);
    // The same complaint twice.
    for (let i = 0; i < 2; i++)
      expect((await account.api('POST', '/api/tracking/bounces', { body: { message_id: angry.messageId, type: 'complaint' } })).status).toBe(201);

    expect((await sql('select count(*)::int as n from bounces where campaign_id = $1', [campaign.id]))[0].n).toBe(6);
    const stats = (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.stats;
    const analytics = (await account.api('GET', `/api/analytics/campaigns/${campaign.id}`)).body;
    const overview = (await account.api('GET', '/api/analytics/overview')).body;
    expect(stats).toMatchObject({ bounced: 1, complained: 1 });
    expect(analytics).toMatchObject({ bounces: { hard: stats.bounced, soft: 0 }, complaints: stats.complained });
    expect(overview).toMatchObject({ bounces: { hard: stats.bounced, soft: 0 }, complaints: stats.complained });
    expect(analytics.domains).toEqual([expect.objectContaining({ domain: 'example.net', bounces: 1 })]);
    expect(analytics.time_series.reduce((n: number, p: { bounces: number }) => n + p.bounces, 0)).toBe(1);
  });
});

describe('conversions and payments', () => {
  let account: TestAccount;
  let sent: Sent[];
  let campaignId: string;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'shop');
    const run = await sendCampaign(account, ['buyer-1@example.com', 'buyer-2@example.com', 'buyer-3@example.com'], 'buyers');
    sent = run.sent;
    campaignId = run.campaign.id;
    await hit(sent[0].clicks[0]);
    await waitFor(async () => (await sql('select 1 from clicks where message_id = $1', [sent[0].messageId])).length > 0);
  });

  it('attributes by click token, by campaign id, by last click in the window, or not at all', async () => {
    const token = sent[1].clicks[0].replace('/t/c/', '');
    const byToken = await account.api('POST', '/api/conversions', {
      body: { email: sent[1].email, click_token: token, type: 'purchase', value: '19.99', currency: 'EUR' },
    });
    expect(byToken.status).toBe(201);
    expect(byToken.body).toMatchObject({ campaign_id: campaignId, attribution: 'click_token', value: '19.99', currency: 'EUR' });

    const byClick = await account.api('POST', '/api/conversions', { body: { contact_id: sent[0].contactId, type: 'signup' } });
    expect(byClick.body).toMatchObject({ campaign_id: campaignId, attribution: 'last_click' });
    const late = await account.api('POST', '/api/conversions', {
      body: { contact_id: sent[0].contactId, type: 'signup', occurred_at: new Date(Date.now() + 8 * 86400_000).toISOString() },
    });
    expect(late.body).toMatchObject({ campaign_id: null, attribution: 'none' });
    const never = await account.api('POST', '/api/conversions', { body: { contact_id: sent[2].contactId, type: 'signup' } });
    expect(never.body).toMatchObject({ campaign_id: null, attribution: 'none' });
    const named = await account.api('POST', '/api/conversions', { body: { contact_id: sent[2].contactId, type: 'signup', campaign_id: campaignId } });
    expect(named.body.attribution).toBe('campaign_id');

    expectProblem(
      await account.api('POST', '/api/conversions', { body: { contact_id: sent[2].contactId, type: 'x', click_token: `${token.slice(0, -3)}abc` } }),
      422,
      'invalid_click_token',
    );
    expectProblem(await account.api('POST', '/api/conversions', { body: { email: 'stranger@example.com', type: 'x' } }), 422, 'contact_not_found');
    expectProblem(
      await account.api('POST', '/api/conversions', { body: { contact_id: sent[2].contactId, type: 'x', value: '1.00' } }),
      400,
      'validation_failed',
    );
    expectProblem(
      await account.api('POST', '/api/conversions', { body: { contact_id: sent[2].contactId, type: 'x', value: '1.5e3', currency: 'EUR' } }),
      400,
      'validation_failed',
    );
  });

  it('external_id makes a conversion idempotent; affiliates get their event', async () => {
    const body = { contact_id: sent[2].contactId, type: 'purchase', value: '100.10', currency: 'USD', external_id: 'order-77', affiliate_id: 'aff-9' };
    const first = await account.api('POST', '/api/conversions', { body });
    const again = await account.api('POST', '/api/conversions', { body: { ...body, value: '999' } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await events(account.accountId, 'affiliate.conversion')).map((e) => e.conversion.id)).toEqual([first.body.id]);
    expect((await events(account.accountId, 'conversion.created')).filter((e) => e.conversion.external_id === 'order-77')).toHaveLength(1);
  });

  it('payments are exact, idempotent and attributed the same way', async () => {
    const body = { email: sent[0].email, amount: '1234567.8901', currency: 'JPY', external_id: 'pay-1' };
    const first = await account.api('POST', '/api/payments', { body });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: '1234567.8901', currency: 'JPY', campaign_id: campaignId, attribution: 'last_click' });
    expect((await account.api('POST', '/api/payments', { body })).status).toBe(200);
    expect(await events(account.accountId, 'payment.received')).toHaveLength(1);
    const list = await account.api('GET', '/api/payments');
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([first.body.id]);
    expectProblem(await account.api('POST', '/api/payments', { body: { ...body, currency: 'euro' } }), 400, 'validation_failed');
  });

  it('lists conversions with filters, newest first, page by page', async () => {
    const page1 = await account.api('GET', '/api/conversions?limit=2&type=signup');
    expect(page1.body.data).toHaveLength(2);
    expect(page1.body.has_more).toBe(true);
    const page2 = await account.api('GET', `/api/conversions?limit=2&type=signup&cursor=${page1.body.next_cursor}`);
    const all = [...page1.body.data, ...page2.body.data];
    expect(all.every((c: { type: string }) => c.type === 'signup')).toBe(true);
    expect(new Set(all.map((c: { id: string }) => c.id)).size).toBe(4);
    const times = all.map((c: { occurred_at: string }) => c.occurred_at);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

describe('analytics', () => {
  it('agree with the raw records after a mixed workload, and stay within the account', async () => {
    const account = await newAccount(sendline.url, 'analyst');
    const other = await newAccount(sendline.url, 'nosy');
    const emails = Array.from({ length: 6 }, (_, i) => `reader-${i}@${i % 2 ? 'example.org' : 'example.com'}`);
    const { campaign, sent } = await sendCampaign(account, emails, 'analytics');
    await Promise.all([hit(sent[0].pixel), hit(sent[0].pixel), hit(sent[1].pixel), hit(sent[2].pixel, { headers: { 'user-agent': 'Mozilla/5.0' } })]);
    await Promise.all([hit(sent[0].clicks[0]), hit(sent[0].clicks[0]), hit(sent[3].clicks[1])]);
    await waitFor(async () => (await sql('select count(*)::int as n from clicks where campaign_id = $1', [campaign.id]))[0].n === 3);
    await hit(sent[4].unsubscribe, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    await account.api('POST', '/api/tracking/bounces', { body: { message_id: sent[5].messageId, type: 'hard' } });
    await account.api('POST', '/api/payments', { body: { contact_id: sent[0].contactId, amount: '10.50', currency: 'EUR', external_id: 'a-1' } });
    await account.api('POST', '/api/conversions', { body: { contact_id: sent[3].contactId, type: 'purchase', value: '2.25', currency: 'EUR' } });

    const [raw] = await sql(
      `select (select count(*) from opens where campaign_id = $1)::int as opens,
              (select count(*) from messages where campaign_id = $1 and opened_at is not null)::int as unique_opens,
              (select count(*) from messages where campaign_id = $1 and human_opened_at is not null)::int as human_opens,
              (select count(*) from clicks where campaign_id = $1)::int as clicks,
              (select count(*) from messages where campaign_id = $1 and clicked_at is not null)::int as unique_clicks,
              (select count(*) from unsubscribes where campaign_id = $1)::int as unsubscribes,
              (select count(*) from bounces where campaign_id = $1 and type = 'hard')::int as hard`,
      [campaign.id],
    );
    expect(raw).toEqual({ opens: 5, unique_opens: 4, human_opens: 3, clicks: 3, unique_clicks: 2, unsubscribes: 1, hard: 1 });

    const stats = await account.api('GET', `/api/analytics/campaigns/${campaign.id}`);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({
      sent: 6,
      delivered: 6,
      opens: { total: raw.opens, unique: raw.unique_opens, human: raw.human_opens },
      clicks: { total: raw.clicks, unique: raw.unique_clicks },
      bounces: { hard: raw.hard, soft: 0 },
      unsubscribes: raw.unsubscribes,
      conversions: { count: 1, revenue: [{ currency: 'EUR', amount: '12.75' }] },
    });
    expect(stats.body.rates.open_rate).toBeCloseTo(4 / 6);
    expect(stats.body.rates.click_to_open_rate).toBeCloseTo(2 / 4);
    expect(stats.body.top_links).toEqual([
      { url: 'https://shop.example/a', unique_clicks: 1, total_clicks: 2 },
      { url: 'https://shop.example/b?x=1', unique_clicks: 1, total_clicks: 1 },
    ]);
    expect(stats.body.domains).toEqual([
      { domain: 'example.com', sent: 3, delivered: 3, opens: 2, clicks: 1, bounces: 0 },
      { domain: 'example.org', sent: 3, delivered: 3, opens: 2, clicks: 1, bounces: 1 },
    ]);
    const points = stats.body.time_series;
    expect(points.reduce((n: number, p: { opens: number }) => n + p.opens, 0)).toBe(raw.opens);
    expect(points.reduce((n: number, p: { clicks: number }) => n + p.clicks, 0)).toBe(raw.clicks);

    const campaignRow = (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.stats;
    expect(campaignRow).toMatchObject({ opened: raw.unique_opens, clicked: raw.unique_clicks, unsubscribed: 1, bounced: 1 });

    const overview = await account.api('GET', '/api/analytics/overview');
    expect(overview.body).toMatchObject({
      contacts: { total: 6, subscribed: 4, unsubscribed: 1, bounced: 1, complained: 0 },
      campaigns: { completed: 1, draft: 0 },
      opens: { total: raw.opens, unique: raw.unique_opens },
      clicks: { total: raw.clicks },
      conversions: { count: 1, revenue: [{ currency: 'EUR', amount: '12.75' }] },
    });
    const future = await account.api('GET', `/api/analytics/overview?since=${encodeURIComponent(new Date(Date.now() + 7200_000).toISOString())}`);
    expect(future.body).toMatchObject({ sent: 0, opens: { total: 0 }, contacts: { total: 6 } });

    expectProblem(await other.api('GET', `/api/analytics/campaigns/${campaign.id}`), 404, 'not_found');
    expect((await other.api('GET', '/api/analytics/overview')).body).toMatchObject({ sent: 0, opens: { total: 0 }, contacts: { total: 0 } });
    expect((await other.api('GET', `/api/tracking/opens?campaign_id=${campaign.id}`)).body.data).toEqual([]);
    expect((await other.api('GET', `/api/tracking/clicks?contact_id=${sent[0].contactId}`)).body.data).toEqual([]);
    expectProblem(await other.api('GET', `/api/contacts/${sent[0].contactId}/activity`), 404, 'not_found');

    const activity = await account.api('GET', `/api/contacts/${sent[0].contactId}/activity?limit=3`);
    expect(activity.body.data.map((a: { type: string }) => a.type)).toEqual(['payment', 'clicked', 'clicked']);
    const rest = await account.api('GET', `/api/contacts/${sent[0].contactId}/activity?cursor=${activity.body.next_cursor}`);
    expect(rest.body.data.map((a: { type: string }) => a.type)).toEqual(['opened', 'opened', 'delivered']);
  });
});

describe('client addresses behind a proxy', () => {
  it('take X-Forwarded-For through trusted proxies only, as the API does', async () => {
    const account = await newAccount(sendline.url, 'proxied');
    const { sent } = await sendCampaign(account, ['proxied@example.com'], 'proxied');
    const proxied = await startTestServer({ PUBLIC_URL, TRACKING_FLUSH_MS: '50', TRUST_PROXY: 'loopback' });
    try {
      // The loopback proxy appended the client it saw (203.0.113.9); the entry before it is the client's own claim.
      await fetch(proxied.url + sent[0].pixel, { headers: { 'user-agent': HUMAN_AGENT, 'x-forwarded-for': '198.51.100.7, 203.0.113.9' } });
      const [row] = await waitFor(() => sql('select ip from opens where message_id = $1', [sent[0].messageId]).then((rows) => rows.length > 0 && rows));
      expect(row.ip).toBe('203.0.113.0');
      // The same in repeated header lines: X-Forwarded-For lines join in order; the first User-Agent counts.
      const { port } = new URL(proxied.url);
      await new Promise<void>((resolve, reject) => {
        const headers = { 'User-Agent': [HUMAN_AGENT, 'curl/8.0'], 'X-Forwarded-For': ['198.51.100.7', '203.0.113.77'] };
        request({ host: '127.0.0.1', port, path: sent[0].pixel, headers }, (res) => res.resume().on('end', resolve))
          .on('error', reject)
          .end();
      });
      const rows = await waitFor(() =>
        sql('select ip, user_agent from opens where message_id = $1 order by occurred_at', [sent[0].messageId]).then((r) => r.length === 2 && r),
      );
      expect(rows[1]).toEqual({ ip: '203.0.113.0', user_agent: HUMAN_AGENT });
    } finally {
      await proxied.stop();
    }
  });
});

describe('batched writes', () => {
  it('loses no hit answered before a graceful stop', async () => {
    const account = await newAccount(sendline.url, 'shutdown');
    const { sent } = await sendCampaign(account, ['late@example.com'], 'shutdown');
    const slow = await startTestServer({ PUBLIC_URL, TRACKING_FLUSH_MS: '60000' });
    for (let i = 0; i < 25; i++) await fetch(slow.url + sent[0].pixel);
    expect((await sql('select count(*)::int as n from opens where message_id = $1', [sent[0].messageId]))[0].n).toBe(0);
    await slow.stop();
    expect((await sql('select count(*)::int as n from opens where message_id = $1', [sent[0].messageId]))[0].n).toBe(25);
  });
});

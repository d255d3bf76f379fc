/**
 * `from`, `to`, `cc` and `bcc` of `POST /emails` and `/emails/batch` take a plain address or
 * `{email, name}`, mixed in one list: a plain address is the object without a name everywhere
 * after (headers, stored recipients, events, suppressions, idempotent replays).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { expectProblem, newAccount, uniqueEmail, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
let account: TestAccount;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  sendline = await startTestServer({ SMTP_URL: sink.url, SEND_RETRY_SECONDS: '1', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' });
  account = await newAccount(sendline.url, 'addresses');
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

const received = (email: string) =>
  waitFor(() => {
    const got = sink.to(email);
    return got.length ? got : undefined;
  });

/** The addresses of a parsed header (`To`, `Cc`) with their names. */
const shown = (field: unknown) =>
  (field && !Array.isArray(field) ? (field as { value: { address?: string; name: string }[] }).value : []).map((a) => [a.address, a.name]);

/** A local part in capitals and the domain in capitals: the stored address keeps the first and lower-cases the second. */
const shouting = (label: string) => {
  const email = uniqueEmail(label);
  const at = email.lastIndexOf('@');
  return { given: email.slice(0, at).toUpperCase() + email.slice(at).toUpperCase(), stored: email.slice(0, at).toUpperCase() + email.slice(at) };
};

describe('addresses as plain strings', () => {
  it('mix with {email, name} in to, cc and bcc, and show in To and Cc as objects would', async () => {
    const [ada, bob, cat, dan, eve] = ['ada', 'bob', 'cat', 'dan', 'eve'].map((l) => uniqueEmail(l));
    const res = await account.api('POST', '/api/emails', {
      body: {
        from: 'receipts@shop.example',
        to: [ada, { email: bob, name: 'Bob Builder' }],
        cc: [{ email: cat }, dan],
        bcc: [eve],
        subject: 'Your receipt',
        text: 'Thanks!',
        tags: ['receipt'],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => [r.email, r.kind, r.status])).toEqual([
      [ada, 'to', 'queued'],
      [bob, 'to', 'queued'],
      [cat, 'cc', 'queued'],
      [dan, 'cc', 'queued'],
      [eve, 'bcc', 'queued'],
    ]);
    for (const to of [ada, bob, cat, dan, eve]) await received(to);
    for (const copy of [sink.to(ada)[0], sink.to(eve)[0]]) {
      expect(copy.mail.from?.value[0]).toMatchObject({ address: 'receipts@shop.example', name: '' });
      expect(shown(copy.mail.to)).toEqual([
        [ada, ''],
        [bob, 'Bob Builder'],
      ]);
      expect(shown(copy.mail.cc)).toEqual([
        [cat, ''],
        [dan, ''],
      ]);
      expect(copy.raw).not.toMatch(/^Bcc:/im);
    }
    // The plain form writes the header the object form writes: the bare address, no name, no brackets.
    expect(sink.to(ada)[0].raw).toMatch(new RegExp(`^To: ${ada.replace(/[.+]/g, '\\$&')},\\r\\n "?Bob Builder"? <`, 'm'));
    const email = await waitFor(async () => {
      const r = await account.api('GET', `/api/emails/${res.body.data[0].id}`);
      return r.body.status === 'delivered' ? r.body : undefined;
    });
    expect(email).toMatchObject({ email: ada, kind: 'to', from: 'receipts@shop.example', from_name: null });
    expect(email.events.map((e: any) => [e.type, e.data.email])).toEqual([
      ['email.sent', ada],
      ['email.delivered', ada],
    ]);
  });

  it('are stored, deduplicated and judged by suppressions exactly as {email} is', async () => {
    const { given, stored } = shouting('shout');
    const bounced = uniqueEmail('bounced');
    expect((await account.api('POST', '/api/contacts', { body: { email: bounced, status: 'bounced' } })).status).toBe(201);
    const res = await account.api('POST', '/api/emails', {
      body: { from: { email: 'receipts@shop.example' }, to: [given, bounced], cc: [{ email: stored }, { email: bounced }], subject: 'Hi', text: 'x' },
    });
    expect(res.status).toBe(202);
    // One copy per address whatever its form; the domain lower-cased; the bounced address refused with its reason.
    expect(res.body.data.map((r: any) => [r.email, r.kind, r.status, r.reason])).toEqual([
      [stored, 'to', 'queued', null],
      [bounced, 'to', 'refused', 'bounced'],
    ]);
    const id = res.body.data[0].id;
    const shownEmail = await waitFor(async () => {
      const r = await account.api('GET', `/api/emails/${id}`);
      return r.body.status === 'delivered' ? r.body : undefined;
    });
    expect(shownEmail.email).toBe(stored);
    const listed = await account.api('GET', `/api/emails?to=${encodeURIComponent(stored)}`);
    expect(listed.body.data.map((e: any) => e.id)).toEqual([id]);
  });

  it('answer an idempotent retry with the first answer', async () => {
    const to = uniqueEmail('retry');
    const body = { from: 'receipts@shop.example', to: [to], subject: 'Receipt 9', text: 'Thanks!' };
    const headers = { 'idempotency-key': `addresses-${to}` };
    const first = await account.api('POST', '/api/emails', { body, headers });
    const again = await account.api('POST', '/api/emails', { body, headers });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data[0].id).toBe(first.body.data[0].id);
  });

  it('refuses a string that is not an address with its pointer, in a send and in a batch item', async () => {
    const good = uniqueEmail('good');
    const cases: [Record<string, unknown>, string][] = [
      [{ to: ['not an address'] }, '/to/0'],
      [{ to: [good], cc: [{ email: uniqueEmail('c') }, 'nope@'] }, '/cc/1'],
      [{ to: [good], bcc: [''] }, '/bcc/0'],
      [{ to: [good], from: 'receipts at shop' }, '/from'],
      [{ to: [42] }, '/to/0'],
    ];
    for (const [fields, pointer] of cases) {
      const body = { from: 'receipts@shop.example', subject: 'Hi', text: 'x', ...fields };
      const res = await account.api('POST', '/api/emails', { body });
      expectProblem(res, 400, 'validation_failed');
      // The field at fault, once: not a complaint from each form it failed to be.
      expect(res.body.errors.map((e: any) => e.pointer)).toEqual([pointer]);
      const batch = await account.api('POST', '/api/emails/batch', { body: { emails: [body] } });
      expect(batch.status).toBe(202);
      expect(batch.body.data[0]).toMatchObject({ index: 0, status: 'refused' });
      expect(batch.body.data[0].error.errors.map((e: any) => e.pointer)).toEqual([pointer]);
    }
    // An object keeps the pointer of its field.
    const named = await account.api('POST', '/api/emails', {
      body: { from: 'receipts@shop.example', to: [{ email: 'not an address' }], subject: 'Hi', text: 'x' },
    });
    expectProblem(named, 400, 'validation_failed');
    expect(named.body.errors.map((e: any) => e.pointer)).toEqual(['/to/0/email']);
    expect(sink.to(good)).toHaveLength(0);
  });

  it('accepts a batch whose items use either form', async () => {
    const [a, b] = [uniqueEmail('batch-a'), uniqueEmail('batch-b')];
    const res = await account.api('POST', '/api/emails/batch', {
      body: {
        emails: [
          { from: 'receipts@shop.example', to: [a], subject: 'Receipt 1', text: 'Thanks!' },
          { from: { email: 'receipts@shop.example', name: 'Shop' }, to: [{ email: b, name: 'Bea' }, a], subject: 'Receipt 2', text: 'Thanks!' },
        ],
      },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.map((r: any) => [r.index, r.status, r.data.map((d: any) => d.email)])).toEqual([
      [0, 'accepted', [a]],
      [1, 'accepted', [b, a]],
    ]);
    const copy = (await received(b))[0];
    expect(shown(copy.mail.to)).toEqual([
      [b, 'Bea'],
      [a, ''],
    ]);
  });
});

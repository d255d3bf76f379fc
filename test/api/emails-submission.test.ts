import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, newApiKey, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

let sendline: Sendline;
let sink: SmtpSink;
let account: TestAccount;
let writeKey: string;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-submission-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=localhost'], {
    stdio: 'ignore',
  });
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    SMTP_URL: sink.url,
    SUBMISSION_PORT: '0',
    SUBMISSION_HOST: '127.0.0.1',
    SUBMISSION_TLS_CERT: cert,
    SUBMISSION_TLS_KEY: key,
    SUBMISSION_MAX_BYTES: '200000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  });
  account = await newAccount(sendline.url, 'submission');
  writeKey = (await newApiKey(account, sendline.url, { scopes: ['read', 'write'] })).key.key;
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
});

const transport = (pass: string | null, options: Record<string, unknown> = {}) =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port: sendline.submissionPort!,
    secure: false,
    requireTLS: true,
    tls: { rejectUnauthorized: false },
    ...(pass === null ? {} : { auth: { user: 'apikey', pass } }),
    ...options,
  });

describe('SMTP submission', () => {
  it('takes a message over STARTTLS with an API key and sends each recipient a copy, tracked and recorded', async () => {
    const [to, cc, bcc] = [uniqueEmail('smtp-to'), uniqueEmail('smtp-cc'), uniqueEmail('smtp-bcc')];
    const info = await transport(writeKey).sendMail({
      from: 'Shop <receipts@shop.example>',
      to,
      cc,
      bcc,
      subject: 'Receipt by SMTP',
      text: 'Thanks!',
      html: '<p>Thanks! <a href="https://shop.example/o/1">Order</a></p>',
      headers: { 'X-Sendline-Tags': 'receipt, smtp', 'X-Order': '1042' },
      attachments: [{ filename: 'r.txt', content: 'receipt body' }],
    });
    expect(info.response).toMatch(/Queued as em_\S+ em_\S+ em_\S+/);
    for (const address of [to, cc, bcc]) await waitFor(() => sink.to(address).length === 1);
    const copy = sink.to(bcc)[0];
    expect(copy.mail.subject).toBe('Receipt by SMTP');
    expect(copy.mail.headers.get('x-order')).toBe('1042');
    expect(copy.mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['r.txt', 'receipt body']]);
    expect(copy.raw).not.toMatch(/^Bcc:/im);
    expect(copy.raw).not.toMatch(/^List-Unsubscribe/im);
    const listed = await account.api('GET', `/api/emails?to=${encodeURIComponent(bcc)}`);
    expect(listed.body.data[0]).toMatchObject({ kind: 'bcc', tags: ['receipt', 'smtp'], subject: 'Receipt by SMTP' });
  });

  it('takes tags and metadata from X-Sendline-* headers, into the events, and relays none of those headers', async () => {
    const to = uniqueEmail('smtp-meta');
    const info = await transport(writeKey).sendMail({
      from: 'receipts@shop.example',
      to,
      subject: 'Receipt with metadata',
      text: 'Thanks!',
      headers: {
        'X-Sendline-Tags': 'receipt, shop',
        'X-Sendline-Metadata': JSON.stringify({ order_number: '1042', customer: 'Zoë Ørsted' }),
        'X-Sendline-Track': 'opens',
      },
    });
    const [id] = /em_\S+/.exec(info.response)!;
    await waitFor(() => sink.to(to).length === 1);
    expect(sink.to(to)[0].raw).not.toMatch(/^X-Sendline-(Tags|Metadata|Track)/im);
    const metadata = { order_number: '1042', customer: 'Zoë Ørsted' };
    const got = await waitFor(async () => {
      const res = await account.api('GET', `/api/emails/${id}`);
      return res.body.status === 'delivered' ? res.body : undefined;
    });
    expect(got).toMatchObject({ tags: ['receipt', 'shop'], metadata, track_opens: true, track_clicks: false });
    expect(got.events.find((e: any) => e.type === 'email.delivered').data).toMatchObject({ tags: ['receipt', 'shop'], metadata });
    const listed = await account.api('GET', `/api/emails?tag=shop&to=${encodeURIComponent(to)}`);
    expect(listed.body.data[0]).toMatchObject({ id, metadata });
  });

  it('refuses at DATA, naming the header, tags and metadata that POST /emails would refuse', async () => {
    const to = uniqueEmail('smtp-badmeta');
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'X-Sendline-Metadata': '{"order": 1042' }, /^550 5\.6\.0 X-Sendline-Metadata must be a JSON object/],
      [{ 'X-Sendline-Metadata': '["1042"]' }, /^550 5\.6\.0 X-Sendline-Metadata: \/metadata must be object/],
      [{ 'X-Sendline-Metadata': '{"order": 1042}' }, /^550 5\.6\.0 X-Sendline-Metadata: \/metadata\/order must be string/],
      [{ 'X-Sendline-Metadata': JSON.stringify({ ['k'.repeat(41)]: 'v' }) }, /^550 5\.6\.0 X-Sendline-Metadata: \/metadata\/k+ a key is 1 to 40 characters/],
      [
        { 'X-Sendline-Metadata': JSON.stringify(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v']))) },
        /X-Sendline-Metadata: \/metadata at most 20 keys/,
      ],
      [
        { 'X-Sendline-Tags': Array.from({ length: 21 }, (_, i) => `t${i}`).join(', ') },
        /^550 5\.6\.0 X-Sendline-Tags: \/tags must NOT have more than 20 items/,
      ],
      [{ 'X-Sendline-Tags': `fine, ${'t'.repeat(101)}` }, /^550 5\.6\.0 X-Sendline-Tags: \/tags\/1 must NOT have more than 100 characters/],
    ];
    for (const [headers, reply] of cases) {
      const sent = transport(writeKey).sendMail({ from: 'receipts@shop.example', to, subject: 'x', text: 'x', headers });
      await expect(sent).rejects.toMatchObject({ responseCode: 550, response: expect.stringMatching(reply) });
    }
    expect((await account.api('GET', `/api/emails?to=${encodeURIComponent(to)}`)).body.data).toEqual([]);
    expect(sink.to(to)).toHaveLength(0);
  });

  it('refuses a session without a key, with a wrong or read-only key, or from an address the key does not allow', async () => {
    const readOnly = (await newApiKey(account, sendline.url, { scopes: ['read'] })).key.key;
    const elsewhere = (await newApiKey(account, sendline.url, { scopes: ['write'], allowed_ips: ['10.0.0.0/8'] })).key.key;
    const mail = { from: 'receipts@shop.example', to: uniqueEmail('nokey'), subject: 'x', text: 'x' };
    await expect(transport(null).sendMail(mail)).rejects.toMatchObject({ responseCode: 530 });
    for (const key of ['sk_live_not_a_key', readOnly, elsewhere]) await expect(transport(key).sendMail(mail)).rejects.toMatchObject({ responseCode: 535 });
    expect(sink.to(mail.to)).toHaveLength(0);
  });

  it('takes no credentials before STARTTLS when a certificate is configured', async () => {
    const plain = transport(writeKey, { requireTLS: false, ignoreTLS: true });
    await expect(plain.sendMail({ from: 'receipts@shop.example', to: uniqueEmail('plain'), subject: 'x', text: 'x' })).rejects.toMatchObject({
      responseCode: 538,
    });
  });

  it('refuses bounced recipients one by one, and messages over the size limit', async () => {
    const [gone, fine] = [uniqueEmail('smtp-gone'), uniqueEmail('smtp-fine')];
    await account.api('POST', '/api/contacts', { body: { email: gone, status: 'bounced' } });
    const info = await transport(writeKey).sendMail({ from: 'receipts@shop.example', to: [gone, fine], subject: 'x', text: 'x' });
    expect(info.rejected).toEqual([gone]);
    expect(info.accepted).toEqual([fine]);
    await waitFor(() => sink.to(fine).length === 1);
    const big = transport(writeKey).sendMail({
      from: 'receipts@shop.example',
      to: uniqueEmail('big'),
      subject: 'x',
      text: 'x',
      attachments: [{ filename: 'big.bin', content: Buffer.alloc(300_000, 1) }],
    });
    await expect(big).rejects.toMatchObject({ responseCode: 552 });
  });

  it("counts each message against the key's rate limit", async () => {
    const limited = (await newApiKey(account, sendline.url, { scopes: ['write'], rate_limit_per_minute: 2 })).key.key;
    const client = transport(limited, { pool: true, maxConnections: 1 });
    // AUTH counts one request, then each message one more.
    const send = () => client.sendMail({ from: 'receipts@shop.example', to: uniqueEmail('rated'), subject: 'x', text: 'x' });
    await send();
    await expect(send()).rejects.toMatchObject({ responseCode: 451 });
    client.close();
  });

  it('refuses with 550 a message from a domain the account has not verified, once it has a domain', async () => {
    const other = await newAccount(sendline.url, 'submission-domains');
    const key = (await newApiKey(other, sendline.url, { scopes: ['read', 'write'] })).key.key;
    await other.api('POST', '/api/domains', { body: { name: 'unverified.example' } });
    await expect(transport(key).sendMail({ from: 'news@unverified.example', to: uniqueEmail('smtp'), subject: 'Hi', text: 'Hi' })).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringContaining('news@unverified.example is not from a verified domain'),
    });
  });
});

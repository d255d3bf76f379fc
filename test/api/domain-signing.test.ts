/**
 * Mail from each account's verified domain, end to end: signed with that domain's own key (checked
 * by dkimpy, an independent verifier, against a real DNS server), sent with a signed VERP return
 * path at `bounces.<domain>`, and a bounce to that address mapped to its message by the address alone.
 */
import { readFileSync } from 'node:fs';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { verifyDkim } from '../dkim-verify.ts';
import { startDnsServer, type DnsRecord, type DnsServer } from '../dns-server.ts';
import { newAccount, startTestServer, uniqueEmail, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink, type Received } from '../smtp-sink.ts';

let dns: DnsServer;
let sink: SmtpSink;
let sendline: Sendline;
let alice: TestAccount;
let bob: TestAccount;
const published: DnsRecord[] = [];

/** Adds the domain to the account, publishes its records and verifies it. */
async function verifiedDomain(account: TestAccount, name: string): Promise<void> {
  const { body: domain } = await account.api('POST', '/api/domains', { body: { name } });
  published.push(...(domain.records as DnsRecord[]).map(({ name: n, type, value }) => ({ name: n, type, value })));
  await dns.setRecords(published);
  expect((await account.api('POST', `/api/domains/${domain.id}/verify`)).body.status).toBe('verified');
}

beforeAll(async () => {
  dns = await startDnsServer();
  sink = await new SmtpSink().start();
  sendline = await startTestServer({
    DATABASE_URL: await freshDatabase('domain_signing'),
    SMTP_URL: sink.url,
    DNS_SERVERS: dns.address,
    BOUNCE_DOMAIN: 'bounces.sendline.test',
    BOUNCE_SMTP_PORT: '0',
    BOUNCE_SMTP_HOST: '127.0.0.1',
  });
  [alice, bob] = await Promise.all([newAccount(sendline.url, 'alice'), newAccount(sendline.url, 'bob')]);
  await verifiedDomain(alice, 'alice.example');
  await verifiedDomain(bob, 'bob.example');
});
afterAll(async () => {
  await sendline?.stop();
  await sink?.stop();
  await dns?.stop();
});

async function campaignMessage(account: TestAccount, from: string): Promise<{ received: Received; contactId: string }> {
  const to = uniqueEmail('reader');
  const { body: contact } = await account.api('POST', '/api/contacts', { body: { email: to } });
  const { body: campaign } = await account.api('POST', '/api/campaigns', {
    body: { name: 'Signed', subject: 'Signed news', from_email: from, content: '<p>Hi <a href="https://example.com/x">there</a></p>' },
  });
  expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
  return { received: await waitFor(() => sink.to(to)[0]), contactId: contact.id };
}

async function transactionalMessage(account: TestAccount, from: string): Promise<Received> {
  const to = uniqueEmail('customer');
  expect((await account.api('POST', '/api/emails', { body: { from: { email: from }, to: [{ email: to }], subject: 'Receipt', text: 'Thanks' } })).status).toBe(
    202,
  );
  return waitFor(() => sink.to(to)[0]);
}

async function mailBounce(to: string, recipient: string): Promise<void> {
  const raw = readFileSync(new URL('../fixtures/dsn-postfix.eml', import.meta.url), 'utf8').replace(
    /\{\{(\w+)\}\}/g,
    (_, key: string) => ({ RETURN_PATH: to, RECIPIENT: recipient, MESSAGE_ID: 'not-a-sendline-message', STATUS: '5.1.1', CODE: '550' })[key] ?? '',
  );
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: sendline.bounceSmtpPort!, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: '', to }, raw });
  } finally {
    transport.close();
  }
}

describe("mail from an account's verified domain", () => {
  it("is signed with that domain's key, aligned with From, for each account and stream", async () => {
    const cases = [
      { received: (await campaignMessage(alice, 'news@alice.example')).received, domain: 'alice.example' },
      { received: await transactionalMessage(alice, 'receipts@shop.alice.example'), domain: 'alice.example' },
      { received: (await campaignMessage(bob, 'news@bob.example')).received, domain: 'bob.example' },
      { received: await transactionalMessage(bob, 'receipts@bob.example'), domain: 'bob.example' },
    ];
    for (const { received, domain } of cases) {
      const verdict = await verifyDkim(received.raw, dns.address);
      expect(verdict, verdict.output).toMatchObject({ ok: true, domain });
      expect(received.envelopeFrom).toMatch(new RegExp(`^b-[0-9a-z-]+@bounces\\.${domain.replace('.', '\\.')}$`));
      expect(received.envelopeFrom.split('@')[0].length).toBeLessThanOrEqual(64);
    }
    // The one-click unsubscribe headers are among those signed.
    const signature = /^DKIM-Signature:[\s\S]*?(?=\r?\n\S)/m.exec(cases[0].received.raw)![0];
    expect(signature.replace(/\s+/g, '')).toMatch(/h=[^;]*list-unsubscribe:list-unsubscribe-post/i);
  });

  it('fails the verifier once a signed header is changed', async () => {
    const { received } = await campaignMessage(alice, 'news@alice.example');
    expect((await verifyDkim(received.raw, dns.address)).ok).toBe(true);
    const tampered = received.raw.replace(/^Subject: .*$/m, 'Subject: Changed on the way');
    expect(tampered).not.toBe(received.raw);
    expect((await verifyDkim(tampered, dns.address)).ok).toBe(false);
  });

  it("refuses an address on another account's domain", async () => {
    // Bob has no domain alice.example: with a domain of his own, the policy refuses the address.
    const res = await bob.api('POST', '/api/emails', {
      body: { from: { email: 'ceo@alice.example' }, to: [{ email: 'x@example.com' }], subject: 'Hi', text: 'Hi' },
    });
    expect(res.status).toBe(422);
  });

  it('maps a bounce to its VERP address to the message and contact, and ignores a forged one', async () => {
    const { received, contactId } = await campaignMessage(alice, 'news@alice.example');
    const forged = received.envelopeFrom.replace(/-([0-9a-z]{16})@/, (_, mac: string) => `-${mac.slice(0, -1)}${mac.endsWith('a') ? 'b' : 'a'}@`);
    expect(forged).not.toBe(received.envelopeFrom);
    await mailBounce(forged, received.to);
    await mailBounce(`b-msg-${'0'.repeat(26)}-${'0'.repeat(16)}@bounces.alice.example`, received.to);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await alice.api('GET', `/api/contacts/${contactId}`)).body.status).toBe('subscribed');

    await mailBounce(received.envelopeFrom, received.to);
    await waitFor(async () => (await alice.api('GET', `/api/contacts/${contactId}`)).body.status === 'bounced');
    const bounces = (await alice.api('GET', '/api/tracking/bounces')).body.data;
    expect(bounces).toEqual([expect.objectContaining({ email: received.to, type: 'hard', contact_id: contactId })]);
  });
});

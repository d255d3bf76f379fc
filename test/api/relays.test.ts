import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, type TestAccount, uniqueEmail, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';

/** A port nothing listens on: a relay that refuses every connection. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A campaign to `emails`, from an account of its own (a campaign goes to all of an account's contacts); answers when it completed. */
async function sendCampaign(url: string, fromEmail: string, emails: string[]): Promise<{ account: TestAccount; id: string }> {
  const account = await newAccount(url, 'campaign');
  const imported = await account.api('POST', '/api/contacts/import', { body: { contacts: emails.map((email) => ({ email })) } });
  expect(imported.status).toBeLessThan(300);
  const { body: campaign } = await account.api('POST', '/api/campaigns', {
    body: { name: `from ${fromEmail}`, subject: 'News', from_email: fromEmail, content: '<p>Hi {{ email }}</p>' },
  });
  expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBeLessThan(300);
  await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed', 60_000);
  return { account, id: campaign.id as string };
}

async function sendEmail(account: TestAccount, fromEmail: string, to: string): Promise<void> {
  const res = await account.api('POST', '/api/emails', { body: { from: { email: fromEmail }, to: [{ email: to }], subject: 'Receipt', text: 'Thanks!' } });
  expect(res.status).toBe(202);
}

/** Copies per Message-ID among what `sinks` received for `emails`. */
function copiesById(sinks: SmtpSink[], emails: string[]): Map<string, number> {
  const wanted = new Set(emails.map((e) => e.toLowerCase()));
  const copies = new Map<string, number>();
  for (const sink of sinks) {
    for (const r of sink.received) if (wanted.has(r.to.toLowerCase())) copies.set(r.mail.messageId!, (copies.get(r.mail.messageId!) ?? 0) + 1);
  }
  return copies;
}

describe('routes by stream and by sending domain', () => {
  let sendline: Sendline;
  let account: TestAccount;
  const [bulk, transactional] = [new SmtpSink(), new SmtpSink()];

  beforeAll(async () => {
    await Promise.all([bulk.start(), transactional.start()]);
    sendline = await startTestServer({
      SMTP_RELAYS: JSON.stringify([
        { name: 'bulk', url: bulk.url, max_connections: 2 },
        { name: 'tx', url: transactional.url },
      ]),
      SMTP_ROUTES: JSON.stringify([
        { stream: 'campaign', relays: ['bulk'] },
        { stream: 'transactional', relays: ['tx'] },
        { stream: 'automation', relays: ['bulk'] },
        // The nearer domain wins over the stream: alerts' campaigns go out as its receipts do.
        { domain: 'alerts.shop.example', relays: ['tx'] },
        { domain: 'billing.example', stream: 'transactional', relays: ['bulk'] },
      ]),
      SEND_BATCH_SIZE: '5',
    });
    account = await newAccount(sendline.url, 'relays');
  });
  afterAll(async () => {
    await sendline?.stop();
    await Promise.all([bulk.stop(), transactional.stop()]);
  });

  it('sends campaigns and transactional email each through its route', async () => {
    const news = Array.from({ length: 6 }, (_, i) => uniqueEmail(`news${i}`));
    const alerts = Array.from({ length: 3 }, (_, i) => uniqueEmail(`alert${i}`));
    await sendCampaign(sendline.url, 'news@shop.example', news);
    await sendCampaign(sendline.url, 'ops@eu.alerts.shop.example', alerts);
    const [receipt, invoice] = [uniqueEmail('receipt'), uniqueEmail('invoice')];
    await sendEmail(account, 'receipts@shop.example', receipt);
    await sendEmail(account, 'invoices@billing.example', invoice);
    await waitFor(() => transactional.to(receipt).length && bulk.to(invoice).length);

    for (const email of news) expect([bulk.to(email).length, transactional.to(email).length]).toEqual([1, 0]);
    for (const email of alerts) expect([bulk.to(email).length, transactional.to(email).length]).toEqual([0, 1]);
    expect([bulk.to(receipt).length, transactional.to(receipt).length]).toEqual([0, 1]);
    expect([bulk.to(invoice).length, transactional.to(invoice).length]).toEqual([1, 0]);
    expect(bulk.peakConnections).toBeLessThanOrEqual(2);
  });

  it("sends automations' email through the automation stream's route", async () => {
    const template = await account.api('POST', '/api/templates', { body: { name: 'journey', subject: 'Hi', html: '<p>Hi</p>' } });
    await account.api('POST', `/api/templates/${template.body.id}/publish`);
    const automation = await account.api('POST', '/api/automations', {
      body: {
        name: 'Journey',
        trigger: { type: 'manual' },
        steps: [{ id: 'mail', type: 'send_email', template_id: template.body.id, from_email: 'journeys@shop.example' }],
      },
    });
    await account.api('POST', `/api/automations/${automation.body.id}/activate`);
    const reader = uniqueEmail('journey');
    const created = await account.api('POST', '/api/contacts', { body: { email: reader } });
    await account.api('POST', `/api/automations/${automation.body.id}/enrollments`, { body: { contact_ids: [created.body.id] } });
    await waitFor(() => bulk.to(reader).length);
    expect(transactional.to(reader)).toHaveLength(0);
  });
});

describe('failover to the next relay of the route', () => {
  let sendline: Sendline;
  let account: TestAccount;
  const [first, second] = [new SmtpSink(), new SmtpSink()];

  beforeAll(async () => {
    await Promise.all([first.start(), second.start()]);
    sendline = await startTestServer({
      SMTP_RELAYS: JSON.stringify([
        { name: 'unreachable', url: `smtp://127.0.0.1:${await closedPort()}` },
        { name: 'first', url: first.url },
        { name: 'second', url: second.url },
      ]),
      SMTP_ROUTES: JSON.stringify([{ relays: ['unreachable', 'first', 'second'] }]),
      SEND_BATCH_SIZE: '10',
    });
    account = await newAccount(sendline.url, 'failover');
  });
  afterAll(async () => {
    await sendline?.stop();
    await Promise.all([first.stop(), second.stop()]);
  });

  it('delivers every message exactly once when a relay refuses connections, and again when another stops', async () => {
    const before = Array.from({ length: 20 }, (_, i) => uniqueEmail(`before${i}`));
    const receipts = Array.from({ length: 5 }, (_, i) => uniqueEmail(`receipt${i}`));
    const campaign = await sendCampaign(sendline.url, 'news@shop.example', before);
    for (const to of receipts) await sendEmail(account, 'receipts@shop.example', to);
    await waitFor(() => receipts.every((to) => first.to(to).length));
    expect(second.received).toHaveLength(0);

    // The relay that took everything goes away: the same route now ends at the last relay.
    await first.stop();
    const after = Array.from({ length: 20 }, (_, i) => uniqueEmail(`after${i}`));
    const later = await sendCampaign(sendline.url, 'news@shop.example', after);
    for (const to of receipts.map((r) => `again.${r}`)) await sendEmail(account, 'receipts@shop.example', to);
    await waitFor(() => receipts.every((to) => second.to(`again.${to}`).length));

    const everyone = [...before, ...receipts, ...after, ...receipts.map((r) => `again.${r}`)];
    const copies = copiesById([first, second], everyone);
    expect(copies.size).toBe(everyone.length);
    expect([...copies.values()].every((n) => n === 1)).toBe(true);
    for (const email of after) expect(second.to(email)).toHaveLength(1);
    for (const { account: owner, id } of [campaign, later]) {
      const { body } = await owner.api('GET', `/api/campaigns/${id}`);
      expect(body.stats).toMatchObject({ recipients: 20, sent: 20, delivered: 20 });
    }
  });
});

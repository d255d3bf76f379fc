/**
 * The Domains page in a real browser against a real server and a real DNS server on loopback:
 * add a domain, copy its records, publish them, verify, rotate the DKIM key.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { startDnsServer, type DnsServer } from '../dns-server.ts';
import { client, newAccount, startTestServer, type TestAccount } from '../helpers.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let dns: DnsServer;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  dns = await startDnsServer();
  [sendline, browser] = await Promise.all([
    startTestServer({
      DATABASE_URL: await freshDatabase('dashboard_domains'),
      DNS_SERVERS: dns.address,
      BOUNCE_DOMAIN: 'bounces.sendline.test',
    }),
    launchChromium(),
  ]);
  owner = await newAccount(sendline.url, 'domains');
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await dns?.stop();
});

const ownerApi = () => client(sendline.url, { authorization: `Bearer ${owner.token}` });
const recordRow = (purpose: string) => page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: purpose }) });

describe('the Domains page', () => {
  it('adds a domain and lists the records to publish, each name and value with a copy button', async () => {
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByText('No domains yet').waitFor();
    await expectAccessible(page, 'domains (empty)');
    await page.getByLabel(/^Domain/).fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText(/\/name must be a domain name/).waitFor();

    await page.getByLabel(/^Domain/).fill('Mail.Shop.Example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { level: 1, name: 'mail.shop.example' }).waitFor();
    const { body: domain } = await ownerApi()('GET', '/api/domains');
    const [dkim] = domain.data[0].records;
    await recordRow('DKIM key').getByRole('button', { name: 'Copy value' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(dkim.value);
    await recordRow('Return path').getByRole('button', { name: 'Copy name' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('bounces.mail.shop.example');
    await recordRow('Return path').getByText('bounces.sendline.test').waitFor();
    await expectAccessible(page, 'a new domain');
  });

  it('verifies the published records, shows what is found instead, and says why a key cannot be switched yet', async () => {
    const { body } = await ownerApi()('GET', '/api/domains');
    const records = body.data[0].records as { name: string; type: 'TXT' | 'CNAME'; value: string; purpose: string }[];
    await dns.setRecords([
      ...records
        .filter((r) => r.purpose === 'dkim' || r.purpose === 'return_path' || r.purpose === 'dmarc')
        .map(({ name, type, value }) => ({ name, type, value })),
      { name: 'mail.shop.example', type: 'TXT', value: 'v=spf1 include:_spf.other.example ~all' },
    ]);
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText('verified', { exact: true }).first().waitFor();
    await recordRow('SPF').getByText('Found instead: v=spf1 include:_spf.other.example ~all').waitFor();
    await recordRow('Tracking links').getByText('missing').waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'domains');

    await page.getByRole('button', { name: 'Make a new key' }).click();
    await page.getByText(/A new key, .*, waits/).waitFor();
    await page.getByRole('button', { name: 'Switch to the new key' }).click();
    await page.getByText(/is not verified yet: publish it and verify the domain first/).waitFor();
    await expectAccessible(page, 'a verified domain during a rotation');
  });

  it("lists the account's domains, and another account sees none of them", async () => {
    await page.getByRole('link', { name: 'All domains' }).click();
    await page.getByRole('link', { name: 'mail.shop.example' }).waitFor();
    const stranger = await newAccount(sendline.url, 'stranger');
    expect((await stranger.api('GET', '/api/domains')).body.data).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('deletes a domain after asking', async () => {
    await page.getByRole('link', { name: 'mail.shop.example' }).click();
    await page.getByRole('button', { name: 'Delete domain' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete domain' }).click();
    await page.getByText('No domains yet').waitFor();
  });
});

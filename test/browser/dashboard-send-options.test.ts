/**
 * A campaign's sending options in a real browser against a real server: the account's default
 * time zone in Settings, a contact's own zone on its page, a campaign scheduled at a wall-clock
 * time in each contact's zone, its web version link and its place in the public archive.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, type TestAccount } from '../helpers.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  [sendline, browser] = await Promise.all([startTestServer(), launchChromium()]);
  owner = await newAccount(sendline.url, 'zones');
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
});

const api = async (path: string) => (await owner.api('GET', path)).body;

describe('sending options in the dashboard', () => {
  it("sets the account's default zone in Settings, and says which name is no zone", async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Time zone' });
    await form.getByLabel('Default time zone').fill('Mars/Olympus');
    await form.getByRole('button', { name: 'Save time zone' }).click();
    await form.getByText('is not an IANA time zone name').waitFor();
    await form.getByLabel('Default time zone').fill('Europe/Berlin');
    await form.getByRole('button', { name: 'Save time zone' }).click();
    await form.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await api('/api/account')).timezone).toBe('Europe/Berlin');
    await expectAccessible(page, 'settings (time zone)');
  });

  it("sets a contact's own zone, and clears it back to the account's", async () => {
    const contact = (await owner.api('POST', '/api/contacts', { body: { email: 'ada@zones.example' } })).body;
    await page.goto(`${sendline.url}/app/contacts/${contact.id}`);
    await page.getByRole('heading', { level: 1, name: 'ada@zones.example' }).waitFor();
    const form = page.getByRole('form', { name: 'Time zone' });
    await form.getByLabel("Contact's time zone").fill('Asia/Tokyo');
    await form.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByRole('definition').filter({ hasText: 'Asia/Tokyo' }).waitFor();
    expect((await api(`/api/contacts/${contact.id}`)).timezone).toBe('Asia/Tokyo');
    await form.getByLabel("Contact's time zone").fill('');
    await form.getByRole('button', { name: 'Save time zone' }).click();
    await page.getByRole('definition').filter({ hasText: "The account's" }).waitFor();
    expect((await api(`/api/contacts/${contact.id}`)).timezone).toBeNull();
  });

  it("schedules a campaign at a local time in each contact's zone, skipping those already past it", async () => {
    const campaign = (
      await owner.api('POST', '/api/campaigns', { body: { name: 'Morning news', subject: 'Morning', from_email: 'news@zones.example', content: '<p>Hi</p>' } })
    ).body;
    await page.goto(`${sendline.url}/app/campaigns/${campaign.id}`);
    await page.getByRole('heading', { level: 1, name: 'Morning news' }).waitFor();
    await page.getByLabel('Send later, at').fill('2031-05-04T09:00');
    await page.getByLabel(/^Time zone/).selectOption('contact');
    await page.getByLabel('Contacts whose time has passed').selectOption('skip');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page
      .getByTestId('campaign-send-time')
      .filter({ hasText: "at 2031-05-04 09:00 in each contact's time zone, skipping those already past it" })
      .waitFor();
    expect(await api(`/api/campaigns/${campaign.id}`)).toMatchObject({
      status: 'scheduled',
      scheduled_at: '2031-05-03T19:00:00.000Z',
      send_time: { local_time: '2031-05-04T09:00', by_contact_timezone: true, late_policy: 'skip' },
    });
    await expectAccessible(page, 'campaign (scheduled by local time)');
  });

  it('turns the web version link off and publishes a campaign to the archive, which Settings links', async () => {
    const campaign = (
      await owner.api('POST', '/api/campaigns', { body: { name: 'Archived news', subject: 'News', from_email: 'news@zones.example', content: '<p>Hi</p>' } })
    ).body;
    await page.goto(`${sendline.url}/app/campaigns/${campaign.id}`);
    await page.getByRole('heading', { level: 1, name: 'Archived news' }).waitFor();
    await page.getByLabel('End each message with a “View in browser” link').uncheck();
    await page.getByLabel('Publish to the public archive once sent').check();
    await page.getByLabel(/In the archive, .* reads/).fill('reader');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await api(`/api/campaigns/${campaign.id}`)).toMatchObject({ web_version_link: false, archive: true, archive_meta: { first_name: 'reader' } });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const { public_id: publicId } = await api('/api/account');
    await page.getByRole('link', { name: `/archive/${publicId}` }).click();
    await page.getByRole('heading', { name: 'zones Ltd: past campaigns' }).waitFor();
    await page.getByText('No campaigns yet.').waitFor();
  });

  it('threw no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

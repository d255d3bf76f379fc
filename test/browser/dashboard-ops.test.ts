/**
 * The dashboard's operations pages in a real browser against a real server: webhooks with a real
 * receiver on loopback, the live event feed, users and roles, account settings.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, newAccount, startTestServer, type TestAccount } from '../helpers.ts';
import { WebhookReceiver, verifyStandardWebhook } from '../webhook-receiver.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let receiver: WebhookReceiver;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  receiver = await new WebhookReceiver().start();
  [sendline, browser] = await Promise.all([
    startTestServer({ WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '0' }),
    launchChromium(),
  ]);
  owner = await newAccount(sendline.url, 'ops');
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await receiver?.stop();
});

const heading = (name: string) => page.getByRole('heading', { level: 1, name });
/** The account's API as the test's own hand, beside the browser. */
const ownerApi = () => client(sendline.url, { authorization: `Bearer ${owner.token}` });

describe('webhooks', () => {
  it('creates an endpoint with the secret shown once, and a real event reaches the receiver and the delivery log', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhook endpoints yet').waitFor();
    await expectAccessible(page, 'webhooks (empty)');
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel(/Description/).fill('CRM sync');
    // No event chosen: the page says what to do instead of sending a request that must fail.
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByText('Choose at least one event type').waitFor();
    await page.getByLabel('contact.created').check();
    await page.getByLabel('webhook.test').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.getByTestId('secret').textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await expectAccessible(page, 'webhooks (secret shown)');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('secret').count()).toBe(0);
    await page
      .getByRole('row', { name: /CRM sync/ })
      .getByText('active')
      .waitFor();

    await page.getByRole('link', { name: receiver.url }).click();
    await heading('Webhook endpoint').waitFor();
    await page.getByText('No deliveries yet').waitFor();
    // A real event: the receiver gets it signed, and its delivery shows in the log without a reload.
    expect((await ownerApi()('POST', '/api/contacts', { body: { email: 'hooked@example.com' } })).status).toBe(201);
    await expect.poll(() => receiver.events('contact.created').length, { timeout: 20_000 }).toBe(1);
    const row = page.getByTestId('delivery').filter({ hasText: 'contact.created' });
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toMatch(/succeeded1200/);
    await expectAccessible(page, 'webhook');
  });

  it('sends a test, retries a failed delivery (only failed ones offer it) and recovers failed ones', async () => {
    await page.getByRole('button', { name: 'Send a test' }).click();
    await expect.poll(() => page.getByTestId('test-result').textContent(), { timeout: 20_000 }).toMatch(/delivered: HTTP 200/);
    await expect.poll(() => receiver.events('webhook.test').length).toBe(1);
    await page.getByTestId('delivery').filter({ hasText: 'webhook.test' }).waitFor();

    // Both attempts the one-retry schedule allows are refused: the delivery fails for good.
    receiver.script = [500, 500];
    expect((await ownerApi()('POST', '/api/contacts', { body: { email: 'refused@example.com' } })).status).toBe(201);
    await expect.poll(() => receiver.events('contact.created').length, { timeout: 20_000 }).toBe(3);
    const refusedId = receiver.events('contact.created')[1].id;
    const refused = page.getByTestId('delivery').filter({ hasText: refusedId });
    await expect.poll(() => refused.textContent(), { timeout: 15_000 }).toMatch(/failed2500/);
    const retries = page.getByRole('button', { name: /^Retry the / });
    expect(await retries.count()).toBe(1);
    await refused.getByRole('button', { name: /Retry the contact.created delivery/ }).click();
    // The same event id: receivers can tell a retry from a new event.
    await expect
      .poll(() => receiver.events('contact.created').at(-1)?.id === refusedId && receiver.events('contact.created').length, { timeout: 20_000 })
      .toBe(4);
    await expect.poll(() => refused.textContent(), { timeout: 15_000 }).toMatch(/succeeded\d200/);
    expect(await retries.count()).toBe(0);

    await page.getByRole('button', { name: 'Re-send failed deliveries' }).click();
    await page.getByText('0 deliveries queued again.').waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No failed deliveries').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'webhooks');
  });

  it('rotates the secret (the new one shown once), pauses and enables, edits, and deletes after a confirmation', async () => {
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await expectAccessible(page, 'rotate confirmation');
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    const rotated = (await page.getByTestId('secret').textContent())!;
    expect(rotated).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('secret').count()).toBe(0);
    // Signed with the new secret from now on.
    await page.getByRole('button', { name: 'Send a test' }).click();
    await expect.poll(() => receiver.events('webhook.test').length).toBe(2);
    const { headers, body } = receiver.received.at(-1)!;
    expect(verifyStandardWebhook(rotated, headers, body)).toBe(true);

    await page.getByRole('button', { name: 'Pause deliveries' }).click();
    await page.getByRole('button', { name: 'Enable deliveries' }).waitFor();
    expect((await ownerApi()('GET', `/api/webhooks/${id}`)).body.active).toBe(false);
    await page.getByRole('button', { name: 'Enable deliveries' }).click();
    await page.getByRole('button', { name: 'Pause deliveries' }).waitFor();

    await page.getByLabel(/Description/).fill('Every contact event');
    await page.getByLabel('Every contact.* event').check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const saved = (await ownerApi()('GET', `/api/webhooks/${id}`)).body;
    expect(saved.description).toBe('Every contact event');
    // The category replaces the types it covers.
    expect([...saved.events].sort()).toEqual(['contact.*', 'webhook.test']);

    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await heading('Webhooks').waitFor();
    await page.getByText('No webhook endpoints yet').waitFor();
    expect((await ownerApi()('GET', `/api/webhooks/${id}`)).status).toBe(404);
  });
});

describe('live events', () => {
  it('shows an event caused elsewhere, newest first; filters hide other types; pause holds new ones', async () => {
    await page.getByRole('link', { name: 'Live events' }).click();
    await heading('Live events').waitFor();
    // The recent backlog: the contact created above.
    await page.getByTestId('feed-event').filter({ hasText: 'hooked@example.com' }).waitFor();
    const created = await ownerApi()('POST', '/api/contacts', { body: { email: 'live-one@example.com' } });
    const events = page.getByTestId('feed-event');
    await expect.poll(() => events.first().textContent(), { timeout: 15_000 }).toMatch(/contact\.created.*live-one@example\.com/);

    await page.getByText(/Filter by type/).click();
    await page.getByLabel('contact.updated').check();
    await page.getByText('No event of the chosen types yet').waitFor();
    await ownerApi()('PATCH', `/api/contacts/${created.body.id}`, { body: { first_name: 'Lively' } });
    await ownerApi()('POST', '/api/contacts', { body: { email: 'hidden@example.com' } });
    await expect.poll(() => events.count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => events.first().textContent()).toMatch(/contact\.updated/);
    await expectAccessible(page, 'live events (filtered)');
    await page.getByRole('button', { name: 'Show every type' }).click();
    await expect.poll(() => events.first().textContent(), { timeout: 15_000 }).toMatch(/hidden@example\.com/);

    await page.getByRole('button', { name: 'Pause' }).click();
    await ownerApi()('POST', '/api/contacts', { body: { email: 'held@example.com' } });
    await page.getByRole('button', { name: 'Resume (1 new)' }).waitFor({ timeout: 15_000 });
    expect(await events.filter({ hasText: 'held@example.com' }).count()).toBe(0);
    await page.getByRole('button', { name: /Resume/ }).click();
    await expect.poll(() => events.first().textContent()).toMatch(/held@example\.com/);
    await events.first().locator('summary').click();
    await events.first().locator('pre').waitFor();
    await expectAccessible(page, 'live events');
    await page.getByText(/Filter by type/).click();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'live-events');
  });
});

describe('users and roles', () => {
  it('adds a member, changes its role, and shows the API’s refusal to demote the last owner', async () => {
    await page.getByRole('link', { name: 'Users' }).click();
    await heading('Users').waitFor();
    await expectAccessible(page, 'users');
    const form = page.getByRole('form', { name: 'Add a user' });
    await form.getByLabel('Email').fill('colleague@ops.example');
    await form.getByLabel('Name').fill('Colleague');
    await form.getByLabel(/First password/).fill('a long first password');
    await form.getByRole('button', { name: 'Add user' }).click();
    await page.getByText('colleague@ops.example can now sign in.').waitFor();
    const role = page.getByLabel('Role of colleague@ops.example');
    await expect.poll(() => role.inputValue()).toBe('member');
    await role.selectOption('admin');
    await expect
      .poll(
        async () =>
          ((await ownerApi()('GET', '/api/users')).body.data as { email: string; role: string }[]).find((u) => u.email === 'colleague@ops.example')?.role,
      )
      .toBe('admin');
    await role.selectOption('member');
    await expect.poll(() => role.inputValue()).toBe('member');

    await page.getByLabel(`Role of ${owner.email}`).selectOption('member');
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/at least one owner/);
    await expect.poll(() => page.getByLabel(`Role of ${owner.email}`).inputValue()).toBe('owner');
  });

  it('shows a member the users without the controls the API would refuse', async () => {
    const other = await browser.newContext();
    const member = await other.newPage();
    await member.goto(`${sendline.url}/app/users`);
    await member.getByLabel('Email').fill('colleague@ops.example');
    await member.getByLabel('Password').fill('a long first password');
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.getByRole('heading', { level: 1, name: 'Users' }).waitFor();
    await member.getByText(/You are a member/).waitFor();
    await member.getByRole('cell', { name: owner.email }).waitFor();
    expect(await member.getByRole('form', { name: 'Add a user' }).count()).toBe(0);
    expect(await member.getByRole('combobox').count()).toBe(0);
    expect(await member.getByRole('button', { name: 'Remove' }).count()).toBe(0);
    await member.goto(`${sendline.url}/app/settings`);
    await expect.poll(() => member.getByLabel('Account name').isDisabled()).toBe(true);
    await other.close();
  });

  it('removes a user after a confirmation', async () => {
    await page
      .getByRole('row', { name: /colleague@ops\.example/ })
      .getByRole('button', { name: 'Remove' })
      .click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await expect.poll(() => page.getByRole('cell', { name: 'colleague@ops.example' }).count()).toBe(0);
  });
});

describe('settings', () => {
  it('renames the account', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await heading('Settings').waitFor();
    await expectAccessible(page, 'settings');
    await page.getByLabel('Account name').fill('Ops Renamed Ltd');
    await page.getByRole('button', { name: 'Rename account' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await ownerApi()('GET', '/api/account')).body.name).toBe('Ops Renamed Ltd');
  });

  it('changes the password: a wrong current one is refused; the right one ends the other sessions', async () => {
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel(/^New password \(/).fill('a brand new passphrase');
    await page.getByLabel('New password, again').fill('a brand new passphrase');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/current password is wrong/);
    await page.getByLabel('Current password').fill(owner.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions have ended.').waitFor();
    // The session the test registered with has ended; the browser's goes on.
    expect((await ownerApi()('GET', '/api/auth/me')).status).toBe(401);
    const login = await client(sendline.url)('POST', '/api/auth/login', { body: { email: owner.email, password: 'a brand new passphrase' } });
    expect(login.status).toBe(200);
    owner.token = login.body.token;
    await page.reload();
    await heading('Settings').waitFor();
  });
});

describe('phone width', () => {
  it('lays out every new page within a phone’s width', async () => {
    await page.setViewportSize({ width: 390, height: 800 });
    for (const [path, title] of [
      ['/webhooks', 'Webhooks'],
      ['/events', 'Live events'],
      ['/users', 'Users'],
      ['/settings', 'Settings'],
    ]) {
      await page.goto(`${sendline.url}/app${path}`);
      await heading(title).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), path).toBeLessThanOrEqual(390);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('the page', () => {
  it('threw no script error and logged no error', () => {
    expect(pageErrors).toEqual([]);
  });
});

/**
 * The journey editor in a real browser against a real server: create an automation, add, move,
 * branch and delete steps (a fault shown at its step), activate it, and read each step's figures.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { freshDatabase } from '../databases.ts';
import { client, newAccount, startTestServer, type TestAccount, waitFor } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let sink: SmtpSink;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  sink = await new SmtpSink().start();
  [sendline, browser] = await Promise.all([
    startTestServer({ DATABASE_URL: await freshDatabase('dashboard_automations'), SMTP_URL: sink.url }),
    launchChromium(),
  ]);
  owner = await newAccount(sendline.url, 'journeys');
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await sink?.stop();
});

const ownerApi = () => client(sendline.url, { authorization: `Bearer ${owner.token}` });
const step = (id: string) => page.getByRole('listitem', { name: `Step ${id}` });
const save = () => page.getByRole('button', { name: 'Save steps' }).click();

describe('the journey editor', () => {
  it('creates an automation as a draft with a first step', async () => {
    const template = await ownerApi()('POST', '/api/templates', { body: { name: 'Welcome', subject: 'Welcome', html: '<p>Welcome</p>' } });
    await ownerApi()('POST', `/api/templates/${template.body.id}/publish`);
    await page.getByRole('link', { name: 'Automations' }).click();
    await page.getByText('No automations yet').waitFor();
    await expectAccessible(page, 'automations (empty)');
    await page.getByLabel('Name').fill('Welcome series');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { level: 1, name: 'Welcome series' }).waitFor();
    await step('start').waitFor();
  });

  it('adds an email, moves it first, and shows a fault at the step it concerns', async () => {
    await page.getByLabel('Add a step').selectOption('send_email');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const email = step('send_email-2');
    await email.getByLabel('Template to send').selectOption({ label: 'Welcome' });
    await email.getByLabel('From address').fill('hello@shop.example');
    await step('start').getByLabel('Then').selectOption('send_email-2');
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    // First, the email; the wait after it then leads nowhere and nothing leads to it.
    await page.getByRole('button', { name: 'Move send_email-2 up' }).click();
    await save();
    await step('start').getByText('/steps/1: no step leads here').waitFor();
    await step('send_email-2').getByLabel('Then').selectOption('start');
    await step('start').getByLabel('Then').selectOption('');
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = await ownerApi()('GET', '/api/automations');
    expect(saved.body.data[0].steps.map((s: { id: string; next?: string }) => [s.id, s.next ?? null])).toEqual([
      ['send_email-2', 'start'],
      ['start', null],
    ]);
  });

  it('adds a split with its branches, then deletes it and every way into it', async () => {
    await page.getByLabel('Add a step').selectOption('split');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const split = step('split-3');
    await split.getByRole('button', { name: 'Add a branch' }).click();
    await split.getByLabel('Branch 1 (%)').fill('40');
    await split.getByLabel('Branch 2 (%)').fill('30');
    await split.getByLabel('Branch 3 (%)').fill('30');
    await split.getByRole('button', { name: 'Remove branch 3' }).click();
    await step('start').getByLabel('Then').selectOption('split-3');
    await save();
    await split.getByText('/steps/2/branches: the percents must sum to 100').waitFor();
    await split.getByLabel('Branch 2 (%)').fill('60');
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    await page.getByRole('button', { name: 'Delete split-3' }).click();
    await save();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const saved = await ownerApi()('GET', '/api/automations');
    expect(saved.body.data[0].steps.map((s: { id: string }) => s.id)).toEqual(['send_email-2', 'start']);
    expect(saved.body.data[0].steps[1].next ?? null).toBeNull();
  });

  it('activates the journey and shows what each step did', async () => {
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    const [automation] = (await ownerApi()('GET', '/api/automations')).body.data;
    expect(automation).toMatchObject({ status: 'active', version: 1 });
    for (const local of ['ada', 'bob']) await ownerApi()('POST', '/api/contacts', { body: { email: `${local}@journeys.example` } });
    await ownerApi()('POST', `/api/automations/${automation.id}/enrollments`, { body: { emails: ['ada@journeys.example', 'bob@journeys.example'] } });
    await waitFor(async () => ((await ownerApi()('GET', `/api/analytics/automations/${automation.id}`)).body.steps[1].waiting === 2 ? true : undefined));
    await page.reload();
    await step('send_email-2')
      .getByText(/2 entered · 0 here now · 2 went on · \d sent/)
      .waitFor();
    await step('start').getByText('2 entered · 2 here now · 0 went on').waitFor();
    await page.getByRole('region', { name: 'Latest enrolments' }).getByText('send_email-2 → start').first().waitFor();
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'automations');
    await expectAccessible(page, 'an active journey');
    const stranger = await newAccount(sendline.url, 'stranger');
    expect((await stranger.api('GET', '/api/automations')).body.data).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

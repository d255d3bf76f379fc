/**
 * An A/B test in a real browser against a real server: variants and the test's settings in the
 * campaign editor, then the results by variant and a winner chosen by hand.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, signIn } from './harness.ts';

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
  [sendline, browser] = await Promise.all([startTestServer({ SMTP_URL: sink.url }), launchChromium()]);
  owner = await newAccount(sendline.url, 'tester');
  const contacts = Array.from({ length: 8 }, (_, i) => ({ email: `reader${i}@ab.example`, tags: ['ab'] }));
  await owner.api('POST', '/api/contacts/import', { body: { contacts } });
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await sink?.stop();
});

const api = async (path: string) => (await owner.api('GET', path)).body;

describe('an A/B test in the dashboard', () => {
  let id: string;

  it('sets two variants and how the test runs in the campaign editor', async () => {
    id = (
      await owner.api('POST', '/api/campaigns', {
        body: { name: 'Subject test', subject: 'Hello', from_email: 'news@ab.example', content: '<p>Hi</p>', audience: { tags_any: ['ab'] } },
      })
    ).body.id;
    await page.goto(`${sendline.url}/app/campaigns/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Subject test' }).waitFor();
    await page.getByLabel('Test variants (A/B)').check();
    const first = page.getByRole('listitem', { name: 'Variant 1' });
    await first.getByLabel(/^Subject/).fill('Short');
    const second = page.getByRole('listitem', { name: 'Variant 2' });
    await second.getByLabel(/^Subject/).fill('A much longer subject');
    await page.getByRole('button', { name: 'Add a variant' }).click();
    await page.getByRole('button', { name: 'Remove variant 3' }).click();
    await page.getByLabel('Test group (% of the audience)').fill('50');
    await page.getByLabel('Send the winner to the rest by itself after the wait').uncheck();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect(await api(`/api/campaigns/${id}`)).toMatchObject({
      variants: [
        { name: 'A', subject: 'Short' },
        { name: 'B', subject: 'A much longer subject' },
      ],
      ab_test: { test_percent: 50, metric: 'opens', wait: 'PT4H', auto_send_winner: false },
    });
    await expectAccessible(page, 'campaign editor (A/B test)');
  });

  it('shows the figures by variant while it waits, and sends the variant chosen to the rest', async () => {
    await owner.api('POST', `/api/campaigns/${id}/send`);
    await waitFor(async () => (await api(`/api/campaigns/${id}`)).test_phase === 'waiting');
    await page.reload();
    await page.getByTestId('ab-phase').filter({ hasText: 'Waiting for the results.' }).waitFor();
    await expect.poll(() => page.getByTestId('variant-A').getByRole('cell').first().textContent(), { timeout: 20_000 }).toBe('2');
    await expectAccessible(page, 'campaign (A/B test waiting)');
    await page.getByRole('button', { name: 'Send B to the rest' }).click();
    await page.getByTestId('ab-winner').filter({ hasText: 'Winner: B (chosen by hand)' }).waitFor();
    await waitFor(async () => (await api(`/api/campaigns/${id}`)).status === 'completed');
    const subjects = sink.received.map((m) => String(m.mail.subject)).sort();
    expect(subjects).toEqual([
      'A much longer subject',
      'A much longer subject',
      'A much longer subject',
      'A much longer subject',
      'A much longer subject',
      'A much longer subject',
      'Short',
      'Short',
    ]);
  });

  it('threw no script error', () => {
    expect(pageErrors).toEqual([]);
  });
});

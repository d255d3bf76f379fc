/**
 * The contacts page as a marketer works it, in a real browser against a real server: the count
 * of matching contacts, sorting, actions on the contacts ticked and on all that match, the
 * exports of all matching and of those ticked; and the import wizard's lists, ignored columns
 * and first rows in error.
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
let listId: string;
const pageErrors: string[] = [];

/** 60 people, every third tagged `vip`. */
const PEOPLE = Array.from({ length: 60 }, (_, i) => ({ email: `p${String(i).padStart(2, '0')}@example.com`, tags: i % 3 === 0 ? ['vip'] : [] }));

beforeAll(async () => {
  ensureDashboardBuilt();
  [sendline, browser] = await Promise.all([startTestServer(), launchChromium()]);
  owner = await newAccount(sendline.url, 'marketer');
  expect((await owner.api('POST', '/api/contacts/import', { body: { contacts: PEOPLE } })).body.created).toBe(60);
  listId = (await owner.api('POST', '/api/lists', { body: { name: 'Spring promo' } })).body.id;
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const total = () => page.getByTestId('contacts-total').textContent();
const firstEmail = () => page.getByRole('row').nth(1).getByRole('link').textContent();
const api = async (path: string) => (await owner.api('GET', path)).body;

describe('the contacts page', () => {
  it('counts the contacts that match and sorts them', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Contacts', exact: true }).click();
    await poll(total).toBe('60 contacts');
    // One import creates its contacts at one instant: by date, they come in id order.
    await page.getByLabel('Sort').selectOption('email');
    await poll(firstEmail).toBe('p00@example.com');
    await page.getByLabel('Sort').selectOption('-email');
    await poll(firstEmail).toBe('p59@example.com');
    await page.getByRole('button', { name: 'Next' }).click();
    await poll(firstEmail).toBe('p09@example.com');
    await page.getByLabel('Tag', { exact: true }).fill('vip');
    await poll(total).toBe('20 contacts match');
    await poll(firstEmail).toBe('p57@example.com');
    await expectAccessible(page, 'contacts (sorted, filtered)');
  });

  it('tags the contacts ticked, and deletes them behind a confirmation', async () => {
    await page.getByLabel('Select p57@example.com').check();
    await page.getByLabel('Select p54@example.com').check();
    await page.getByRole('heading', { name: 'Act on 2 selected' }).waitFor();
    await page.getByLabel(/^Tags/).fill('picked, spring');
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => page.getByTestId('bulk-result').textContent()).toBe('Done: 2 of 2 contacts changed.');
    expect((await api('/api/contacts?tag=picked')).data.map((c: { email: string }) => c.email).sort()).toEqual(['p54@example.com', 'p57@example.com']);

    await page.getByLabel('Select p57@example.com').check();
    await page.getByLabel('Action').selectOption('delete');
    await expectAccessible(page, 'contacts (bulk actions)');
    await page.getByRole('button', { name: 'Delete contacts' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await poll(total).toBe('19 contacts match');
    expect(await api('/api/contacts/count')).toEqual({ count: 59, exact: true });
  });

  it('adds all matching contacts to a list, beyond the page shown', async () => {
    await page.getByLabel('Tag', { exact: true }).fill('');
    await poll(total).toMatch(/^59 contacts/);
    await page.getByLabel('Select the contacts on this page').check();
    await page.getByRole('heading', { name: 'Act on 50 selected' }).waitFor();
    await page.getByRole('button', { name: 'Select all 59 matching' }).click();
    await page.getByRole('heading', { name: 'Act on all 59 matching' }).waitFor();
    await page.getByLabel('Action').selectOption('add_to_list');
    await page.getByLabel(/^List/).selectOption(listId);
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => page.getByTestId('bulk-result').textContent()).toBe('Done: 59 of 59 contacts changed.');
    expect((await api(`/api/lists/${listId}`)).members.subscribed).toBe(59);
  });

  it('exports the contacts that match as CSV', async () => {
    await page.getByLabel('Tag', { exact: true }).fill('picked');
    await poll(total).toBe('1 contact match');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export all matching (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^contacts-exp_.*\.csv$/);
    const { readFile } = await import('node:fs/promises');
    const csv = await readFile(await file.path(), 'utf8');
    expect(csv).toContain('p54@example.com');
    expect(csv).not.toContain('p00@example.com');
  });

  it('exports the contacts ticked as CSV', async () => {
    await page.getByLabel('Tag', { exact: true }).fill('');
    await poll(total).toMatch(/^59 contacts/);
    await page.getByLabel('Select p20@example.com').check();
    await page.getByLabel('Select p33@example.com').check();
    await page.getByRole('heading', { name: 'Act on 2 selected' }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export selected (CSV)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^contacts-exp_.*\.csv$/);
    const { readFile } = await import('node:fs/promises');
    const lines = (await readFile(await file.path(), 'utf8')).split('\r\n').filter(Boolean);
    // One import's contacts share their created_at: the CSV has them in id order.
    expect(
      lines
        .slice(1)
        .map((line) => line.split(',')[0])
        .sort(),
    ).toEqual(['p20@example.com', 'p33@example.com']);
  });
});

describe('the import wizard', () => {
  it('joins the chosen lists, leaves out ignored columns and shows the first rows in error', async () => {
    await page.getByRole('link', { name: 'Import a CSV' }).click();
    const csv = ['email,Notes,plan', 'new1@example.com,call back,pro', 'broken,x,y', 'new2@example.com,,free', ''].join('\n');
    await page.getByLabel(/Drop a file here/).setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('cell', { name: 'new1@example.com' }).waitFor();
    await page.getByLabel('Notes').selectOption('-');
    await page.getByLabel('Spring promo').check();
    await expectAccessible(page, 'import (lists, ignored column)');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await poll(() => page.getByTestId('import-created').textContent()).toBe('2');
    const errors = page.getByRole('table', { name: /The first rows in error/ });
    await poll(() => errors.getByRole('row').nth(1).textContent()).toMatch(/^2broken\s*invalid_email/);
    await expectAccessible(page, 'import (errors)');
    const [added] = (await api('/api/contacts?email=new1')).data;
    expect(added.attributes).toEqual({ plan: 'pro' });
    expect((await api(`/api/contacts/${added.id}/lists`)).data.map((l: { list_id: string }) => l.list_id)).toEqual([listId]);
    expect(pageErrors).toEqual([]);
  });
});

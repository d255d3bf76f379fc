/**
 * The dashboard's audience and transactional pages in a real browser against a real server:
 * lists and their members, the segment builder's live count, custom fields, tags,
 * suppressions, topics, templates (publish, render errors at line and column) and the log of
 * transactional emails with their events.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, waitFor, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let sink: SmtpSink;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

/** 30 readers: every third tagged `vip`, odd ones on the `pro` plan. */
const READERS = Array.from({ length: 30 }, (_, i) => ({
  email: `reader${String(i).padStart(2, '0')}@example.com`,
  first_name: `Reader ${i}`,
  tags: i % 3 === 0 ? ['vip'] : [],
  attributes: { plan: i % 2 ? 'pro' : 'free' },
}));

beforeAll(async () => {
  ensureDashboardBuilt();
  sink = await new SmtpSink().start();
  [sendline, browser] = await Promise.all([startTestServer({ SMTP_URL: sink.url }), launchChromium()]);
  owner = await newAccount(sendline.url, 'audiences');
  const field = await owner.api('POST', '/api/fields', { body: { key: 'plan', label: 'Plan', type: 'choice', options: ['free', 'pro'] } });
  expect(field.status).toBe(201);
  for (const reader of READERS) expect((await owner.api('POST', '/api/contacts', { body: reader })).status).toBe(201);
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await sink?.stop();
});

/** Answers come from a server on a machine shared with other work: a generous wait. */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const heading = (name: string) => page.getByRole('heading', { level: 1, name });
const go = async (link: string, title: string) => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
  await heading(title).waitFor();
};

describe('lists', () => {
  it('creates a list, adds members by pasted emails, shows counts and members, removes one', async () => {
    await go('Lists', 'Lists');
    await page.getByText('No lists yet').waitFor();
    await expectAccessible(page, 'lists (empty)');
    await page.getByLabel('Name').fill('Weekly digest');
    await page.getByLabel(/^Description/).fill('Every Friday');
    await page.getByRole('button', { name: 'Create list' }).click();
    await heading('Weekly digest').waitFor();
    await page.getByLabel(/Contacts’ emails/).fill('reader01@example.com\nreader02@example.com, reader03@example.com\nnobody@example.com');
    await page.getByRole('button', { name: 'Add members' }).click();
    await poll(() => page.getByTestId('members-outcome').textContent()).toMatch(/Added 3.*No contact has nobody@example\.com/);
    await poll(() => page.getByTestId('members-subscribed').textContent()).toBe('3');
    await poll(() =>
      page
        .getByRole('table', { name: /Members of/ })
        .getByRole('row')
        .count(),
    ).toBe(4);
    await page.getByLabel(/Contacts’ emails/).fill('reader02@example.com');
    await page.getByRole('button', { name: 'Remove members' }).click();
    await poll(() => page.getByTestId('members-subscribed').textContent()).toBe('2');
    await poll(() =>
      page
        .getByRole('table', { name: /Members of/ })
        .getByRole('row')
        .count(),
    ).toBe(3);
    // The ready-to-paste form, copied.
    await poll(() => page.getByTestId('list-form').textContent()).toMatch(/<form[^>]+\/public\/lists\/[^/]+\/subscribe/);
    await page.getByRole('button', { name: 'Copy the form' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toMatch(/^<form/);
    await expectAccessible(page, 'list');
    await page.getByRole('link', { name: 'All lists' }).click();
    await poll(() => page.getByRole('row', { name: /Weekly digest/ }).textContent()).toMatch(/Weekly digest2/);
    await expectAccessible(page, 'lists');
    await screenshot(page, 'lists');
  });

  it('edits a list to double opt-in and deletes another after a confirmation', async () => {
    await page.getByLabel('Name').fill('Old list');
    await page.getByRole('button', { name: 'Create list' }).click();
    await heading('Old list').waitFor();
    await page.getByRole('button', { name: 'Delete list' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await heading('Lists').waitFor();
    await poll(() => page.getByRole('row', { name: /Old list/ }).count()).toBe(0);
    await page.getByRole('link', { name: 'Weekly digest' }).click();
    await heading('Weekly digest').waitFor();
    await page.getByLabel(/Double opt-in/).check();
    await page.getByLabel('Confirmation sender (email)').fill('news@shop.example');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    const list = (await owner.api('GET', '/api/lists')).body.data[0];
    expect(list).toMatchObject({ name: 'Weekly digest', double_opt_in: true, from_email: 'news@shop.example' });
  });
});

describe('segments', () => {
  it('builds nested rules on a custom field and tags; the live count matches the seeded contacts; saves; shows members', async () => {
    await go('Segments', 'Segments');
    await page.getByText('No segments yet').waitFor();
    await expectAccessible(page, 'segments (empty)');
    await page.getByRole('link', { name: 'New segment' }).first().click();
    await heading('New segment').waitFor();
    await page.getByLabel('Name').fill('Pro or VIP, not reader 9');
    // Root: all of [ any of [tags contains vip, plan is pro], email does not contain reader09 ].
    await page.getByLabel('Match of the segment').selectOption('all');
    await page.getByLabel('Remove condition 1').click();
    await page.getByRole('button', { name: 'Add group' }).click();
    await page.getByLabel('Field of condition 1.1').selectOption({ label: 'Tags' });
    await page.getByLabel('Operator of condition 1.1').selectOption({ label: 'contains' });
    await page.getByLabel('Value of condition 1.1').fill('vip');
    await page.getByRole('button', { name: 'Add condition to the group' }).click();
    await page.getByLabel('Field of condition 1.2').selectOption({ label: 'Plan' });
    // A choice field offers its options, and its own operators.
    expect(await page.getByLabel('Operator of condition 1.2').locator('option').allTextContents()).toEqual([
      'is',
      'is not',
      'is one of',
      'is none of',
      'is set',
      'is not set',
    ]);
    await page.getByLabel('Value of condition 1.2').selectOption('pro');
    await page.getByRole('button', { name: 'Add condition', exact: true }).click();
    await page.getByLabel('Field of condition 2').selectOption({ label: 'Email' });
    await page.getByLabel('Operator of condition 2').selectOption({ label: 'does not contain' });
    await page.getByLabel('Value of condition 2').fill('reader09');
    const expected = READERS.filter((r, i) => (r.tags.includes('vip') || r.attributes.plan === 'pro') && i !== 9).length;
    await poll(() => page.getByTestId('segment-count').textContent()).toBe(String(expected));
    // An engagement condition: nobody has opened anything yet.
    await page.getByRole('button', { name: 'Add engagement', exact: true }).click();
    await poll(() => page.getByTestId('segment-count').textContent()).toBe('0');
    await page.getByLabel('Engagement of condition 3').selectOption('not_opened');
    await poll(() => page.getByTestId('segment-count').textContent()).toBe(String(expected));
    // List membership: of those, reader01 and reader03 are on Weekly digest.
    await page.getByRole('button', { name: 'Add list membership', exact: true }).click();
    await page.getByLabel('List of condition 4').selectOption({ label: 'Weekly digest' });
    await poll(() => page.getByTestId('segment-count').textContent()).toBe('2');
    await page.getByLabel('Membership of condition 4').selectOption('not_member');
    await poll(() => page.getByTestId('segment-count').textContent()).toBe(String(expected - 2));
    await page.getByLabel('Remove condition 4').click();
    await poll(() => page.getByTestId('segment-count').textContent()).toBe(String(expected));
    await expectAccessible(page, 'segment builder');
    await screenshot(page, 'segment-builder');
    await page.getByRole('button', { name: 'Save segment' }).click();
    await page.getByRole('heading', { name: 'Members now' }).waitFor();
    await poll(() =>
      page
        .getByRole('table', { name: /Members of/ })
        .getByRole('row')
        .count(),
    ).toBe(expected + 1);
    await expectAccessible(page, 'segment');
    const [saved] = (await owner.api('GET', '/api/segments')).body.data;
    expect((await owner.api('GET', `/api/segments/${saved.id}/contacts?limit=100`)).body.data).toHaveLength(expected);
  });

  it('offers the lists and segments in the campaign editor, and saves them as its audience', async () => {
    const campaign = await owner.api('POST', '/api/campaigns', {
      body: { name: 'Digest', subject: 'Hi', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    expect(campaign.status).toBe(201);
    await page.goto(`${sendline.url}/app/campaigns/${campaign.body.id}`);
    await heading('Digest').waitFor();
    await page.getByRole('group', { name: /lists/ }).getByLabel('Weekly digest').check();
    await page
      .getByRole('group', { name: /segments/ })
      .getByLabel('Pro or VIP, not reader 9')
      .check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    const { audience } = (await owner.api('GET', `/api/campaigns/${campaign.body.id}`)).body;
    expect(audience.list_ids).toHaveLength(1);
    expect(audience.segment_ids).toHaveLength(1);
  });
});

describe('custom fields, tags, suppressions, topics', () => {
  it('creates, edits and deletes a custom field', async () => {
    await go('Custom fields', 'Custom fields');
    await page.getByRole('row', { name: /plan/ }).waitFor();
    await page.getByLabel(/^Key/).fill('score');
    await page.getByLabel('Label').fill('Score');
    await page.getByLabel('Type').selectOption('number');
    await page.getByRole('button', { name: 'Create field' }).click();
    await page.getByRole('row', { name: /score/ }).waitFor();
    await page.getByRole('button', { name: 'Edit score' }).click();
    await page.getByLabel('Label of score').fill('Lead score');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('cell', { name: 'Lead score' }).waitFor();
    await expectAccessible(page, 'custom fields');
    await page.getByRole('row', { name: /score/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await poll(() => page.getByRole('row', { name: /score/ }).count()).toBe(0);
  });

  it('renames a tag with its count, then deletes it', async () => {
    await go('Tags', 'Tags');
    await poll(() => page.getByRole('row', { name: /vip/ }).textContent()).toMatch(/vip10/);
    await page.getByLabel('New name for vip').fill('gold');
    await page.getByRole('button', { name: 'Rename' }).click();
    await poll(() => page.getByRole('row', { name: /gold/ }).textContent()).toMatch(/gold10/);
    await expectAccessible(page, 'tags');
    await page.getByRole('row', { name: /gold/ }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No tags yet').waitFor();
  });

  it('suppresses pasted addresses and a CSV, then takes one off', async () => {
    await go('Suppressions', 'Suppressions');
    await page.getByText('No suppressed addresses').waitFor();
    await expectAccessible(page, 'suppressions (empty)');
    await page.getByLabel(/^Addresses/).fill('reader04@example.com, stranger@example.com');
    await page.getByRole('button', { name: 'Suppress' }).click();
    await page.getByText(/Added 2; 0 already there; 1 subscribed contacts suppressed/).waitFor();
    await page
      .getByLabel(/Or a CSV file/)
      .setInputFiles({ name: 'x.csv', mimeType: 'text/csv', buffer: Buffer.from('email\nblocked@example.com\nnot an address\n') });
    await page.getByRole('button', { name: 'Import the CSV' }).click();
    await page.getByText(/Added 1; .* 1 rows are not addresses: row 3 “not an address”/).waitFor();
    await poll(() => page.getByRole('table', { name: 'Suppressed addresses' }).getByRole('row').count()).toBe(4);
    await expectAccessible(page, 'suppressions');
    const row = page.getByRole('row', { name: /stranger@example\.com/ });
    await row.getByLabel(/Why stranger/).fill('asked again');
    await row.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await poll(() => page.getByRole('row', { name: /stranger@example\.com/ }).count()).toBe(0);
  });

  it('creates, renames and deletes a topic', async () => {
    await go('Topics', 'Topics');
    await page.getByText('No topics yet').waitFor();
    await page.getByLabel('Name').fill('Product news');
    await page.getByRole('button', { name: 'Create topic' }).click();
    await page.getByLabel('Name of Product news').fill('Product updates');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByLabel('Name of Product updates').waitFor();
    await expectAccessible(page, 'topics');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No topics yet').waitFor();
  });
});

describe('templates', () => {
  it('creates a template, publishes a version, renders it with data, and shows errors at their line and column', async () => {
    await go('Templates', 'Templates');
    await page.getByText('No templates yet').waitFor();
    await expectAccessible(page, 'templates (empty)');
    await page.getByLabel('New template’s name').fill('welcome');
    await page.getByRole('button', { name: 'Create template' }).click();
    await heading('welcome').waitFor();
    await page.getByLabel('Subject (Liquid)').fill('Welcome, {{ first_name }}');
    await page.getByLabel('HTML (Liquid)').fill('<h1>Hello {{ first_name }}</h1>\n<p>Your plan: {{ plan | default: "free" }}</p>');
    await page.getByRole('button', { name: 'Publish a version' }).click();
    await poll(() => page.getByTestId('published-version').textContent()).toBe('1');
    await page.getByRole('row', { name: /^1 Welcome/ }).waitFor();
    await page.getByLabel('Data (JSON)').fill('{"first_name": "Grace", "plan": "pro"}');
    await page.getByLabel(/^Version/).selectOption({ label: 'Version 1' });
    await page.getByRole('button', { name: 'Render' }).click();
    await poll(() => page.getByTestId('rendered-subject').textContent()).toBe('Welcome, Grace');
    await poll(() => page.getByTitle('Rendered email').getAttribute('srcdoc')).toContain('Your plan: pro');
    await expectAccessible(page, 'template');
    await screenshot(page, 'templates');
    // The draft breaks on its second line: the error names where.
    await page.getByLabel(/^Version/).selectOption({ label: 'The draft' });
    await page.getByLabel('HTML (Liquid)').fill('<h1>Hello {{ first_name }}</h1>\n<p>{{ first_name | shout }}</p>');
    await page.getByRole('button', { name: 'Render' }).click();
    await poll(() => page.getByTestId('render-error').textContent()).toMatch(/html line 2, column \d+:.*shout/);
    await expectAccessible(page, 'template with an error');
  });

  it('sends a test of the published version', async () => {
    await page.getByLabel(/^Version/).selectOption({ label: 'Version 1' });
    await page.getByLabel(/^To/).fill('tester@example.com');
    await page.getByLabel('From (email)').fill('hello@shop.example');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Sent to tester@example.com.').waitFor();
    const mail = await waitFor(() => sink.received.find((received) => received.to === 'tester@example.com'));
    // The data fills what the recipient's own variables leave out (a test address has no first name).
    expect(mail.mail.subject).toMatch(/^\[Test\] Welcome,/);
    expect(String(mail.mail.html)).toContain('Your plan: pro');
  });
});

describe('transactional emails', () => {
  it('shows an email sent through the API in the log, and its events on its page', async () => {
    await go('Transactional emails', 'Transactional emails');
    await page.getByText('No transactional emails yet').waitFor();
    await expectAccessible(page, 'emails (empty)');
    const sent = await owner.api('POST', '/api/emails', {
      body: { from: { email: 'orders@shop.example' }, to: [{ email: 'buyer@example.com' }], subject: 'Your receipt', html: '<p>Thanks</p>', tags: ['receipt'] },
    });
    expect(sent.status).toBe(202);
    await waitFor(() => sink.received.some((mail) => mail.to === 'buyer@example.com'));
    await poll(() => page.getByRole('row', { name: /buyer@example\.com/ }).textContent()).toMatch(/Your receipt.*delivered.*receipt/);
    await page.getByLabel('Tag').fill('nothing-like-it');
    await page.getByText('No email matches').waitFor();
    await page.getByLabel('Tag').fill('receipt');
    await page.getByRole('link', { name: 'buyer@example.com' }).click();
    await heading('Your receipt').waitFor();
    await poll(() => page.getByTestId('email-events').textContent()).toMatch(/email\.sent.*email\.delivered/);
    await expectAccessible(page, 'email');
  });

  it('sends a test email from the log page', async () => {
    await page.getByRole('link', { name: 'All transactional emails' }).click();
    await heading('Transactional emails').waitFor();
    await page.getByText('Send a test email').click();
    await page.getByLabel('From', { exact: true }).fill('hello@shop.example');
    await page.getByLabel(/^To \(up to 50/).fill('checker@example.com');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('checker@example.com: queued').waitFor();
    await waitFor(() => sink.received.some((mail) => mail.to === 'checker@example.com'));
    await page.getByLabel('Tag').fill('');
    await poll(() => page.getByRole('row', { name: /checker@example\.com/ }).textContent()).toMatch(/A test from Sendline/);
    await expectAccessible(page, 'emails (send a test)');
  });
});

describe('at a phone’s width', () => {
  it('lays the new pages out without sideways scrolling, the menu behind a button', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, title] of [
      ['/segments', 'Segments'],
      ['/lists', 'Lists'],
      ['/suppressions', 'Suppressions'],
    ]) {
      await page.goto(`${sendline.url}/app${path}`);
      await heading(title).waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1'), path).toBe(true);
      // The pager is a nav element: it must not hide with the menu.
      if (path === '/lists') await page.getByRole('button', { name: 'Next' }).waitFor({ state: 'visible' });
    }
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await heading('Templates').waitFor();
    await expectAccessible(page, 'templates (phone)');
  });
});

describe('the page', () => {
  it('threw no script error and logged no error', () => {
    expect(pageErrors).toEqual([]);
  });
});

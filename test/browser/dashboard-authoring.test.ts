/**
 * Writing a campaign in the dashboard, in a real browser against a real server: the visual block
 * editor (its document kept, its HTML sent), Markdown, templates, reply-to and plain text, the
 * preview as a contact searched by email, and the send dialog's count and sender.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, startTestServer, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot, signIn } from './harness.ts';

vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let sink: SmtpSink;
let browser: Browser;
let page: Page;
let owner: TestAccount;
const pageErrors: string[] = [];

const READERS = [
  { email: 'ada@authoring.example', first_name: 'Ada', tags: ['news'] },
  { email: 'grace@authoring.example', first_name: 'Grace', tags: ['news'] },
  { email: 'alan@authoring.example', first_name: 'Alan', tags: [] },
];

beforeAll(async () => {
  ensureDashboardBuilt();
  sink = await new SmtpSink().start();
  [sendline, browser] = await Promise.all([startTestServer({ SMTP_URL: sink.url }), launchChromium()]);
  owner = await newAccount(sendline.url, 'authoring');
  for (const reader of READERS) expect((await owner.api('POST', '/api/contacts', { body: reader })).status).toBe(201);
  const template = await owner.api('POST', '/api/templates', {
    body: {
      name: 'welcome',
      subject: 'Welcome {{ first_name }}',
      html: '<p>Template body for {{ first_name }}</p><p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>',
    },
  });
  expect((await owner.api('POST', `/api/templates/${template.body.id}/publish`)).status).toBe(201);
  ({ page } = await dashboardPage(browser, sendline.url, pageErrors));
  await signIn(page, sendline.url, owner);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await sink?.stop();
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const heading = (name: string) => page.getByRole('heading', { level: 1, name });
const block = (name: string) => page.getByRole('group', { name });
const preview = () => page.getByTitle('Email preview').getAttribute('srcdoc');
const mailTo = (email: string, subject: string) => poll(() => sink.to(email).find((received) => received.mail.subject === subject)?.mail).toBeTruthy();
const received = (email: string, subject: string) => sink.to(email).find((r) => r.mail.subject === subject)!.mail;

async function newCampaign(name: string, subject: string | null) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns', exact: true }).click();
  await heading('Campaigns').waitFor();
  await page.getByLabel('Name').fill(name);
  if (subject === null) await page.getByLabel('Content from').selectOption({ label: 'Template: welcome' });
  else await page.getByLabel('Subject').fill(subject);
  await page.getByLabel('From (email)').fill('news@authoring.example');
  await page.getByRole('button', { name: 'Create and edit' }).click();
  await heading(name).waitFor();
}

async function previewAs(search: string, email: string) {
  await page.getByLabel(/^Preview as/).fill(search);
  await page.getByRole('list', { name: 'Contacts found' }).getByRole('button', { name: email, exact: true }).click();
  await poll(() => page.getByTestId('preview-contact').textContent()).toBe(`Previewing as ${email}`);
}

async function save() {
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByText('Saved.').waitFor();
}

describe('the visual editor', () => {
  it('composes with blocks, previews them as a contact searched by email, and saves them', async () => {
    await newCampaign('Garden sale', 'Hi {{ first_name }}');
    await page.getByRole('radio', { name: 'Visual (blocks)' }).check();
    // The starter HTML becomes a block: switching loses nothing.
    await block('Block 1: HTML').waitFor();
    await page.getByRole('button', { name: 'Remove Block 1: HTML' }).click();
    const add = page.getByRole('group', { name: 'Add a block' });
    await add.getByRole('button', { name: '+ Heading' }).click();
    await block('Block 1: Heading').getByLabel('Heading text').fill('Spring is here');
    await add.getByRole('button', { name: '+ Text' }).click();
    await block('Block 2: Text').getByRole('textbox').fill('Hello {{ first_name | default: "there" }}, our garden sale starts now.');
    await add.getByRole('button', { name: '+ Button' }).click();
    await block('Block 3: Button').getByLabel('Button label').fill('Shop the sale');
    await block('Block 3: Button').getByLabel('Button link').fill('https://shop.example/sale');
    await add.getByRole('button', { name: '+ HTML' }).click();
    await block('Block 4: HTML').getByRole('textbox').fill('<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>');
    await page.getByRole('button', { name: 'Move Block 2: Text up' }).click();
    await block('Block 1: Text').waitFor();
    await block('Block 2: Heading').waitFor();

    await previewAs('grace@', 'grace@authoring.example');
    await poll(preview).toContain('Hello Grace, our garden sale starts now.');
    await poll(preview).toContain('Spring is here');
    await poll(() => page.getByTestId('preview-subject').textContent()).toBe('Hi Grace');

    await page.getByLabel('From (name)').fill('Garden Shop');
    await page.getByLabel(/^Reply-to/).fill('help@authoring.example');
    await page.getByLabel(/^Plain-text version/).fill('Hi {{ first_name }}, the sale is on: https://shop.example/sale');
    await page.getByLabel(/Audience: contacts with any of these tags/).fill('news');
    await save();
    await expectAccessible(page, 'campaign in the visual editor');
    await screenshot(page, 'campaign-blocks');
  });

  it('reopens with its blocks, and HTML mode shows the HTML they make', async () => {
    await page.reload();
    await heading('Garden sale').waitFor();
    await expect.poll(() => page.getByRole('radio', { name: 'Visual (blocks)' }).isChecked()).toBe(true);
    expect(await block('Block 1: Text').getByRole('textbox').inputValue()).toBe('Hello {{ first_name | default: "there" }}, our garden sale starts now.');
    expect(await block('Block 2: Heading').getByLabel('Heading text').inputValue()).toBe('Spring is here');
    expect(await block('Block 3: Button').getByLabel('Button link').inputValue()).toBe('https://shop.example/sale');
    await page.getByRole('radio', { name: 'HTML' }).check();
    const html = await page.getByLabel('HTML content (Liquid)').inputValue();
    expect(html).toContain('Hello {{ first_name | default: "there" }}, our garden sale starts now.');
    expect(html).toContain('href="{{ unsubscribe_url }}"');
    // Not saved: the campaign keeps its blocks.
    await page.reload();
    await block('Block 4: HTML').waitFor();
  });

  it('states how many will receive it and from whom, then sends the blocks with the reply-to and text part', async () => {
    await page.getByRole('button', { name: 'Send now' }).click();
    const dialog = page.getByRole('dialog');
    await poll(() => dialog.getByTestId('send-summary').textContent()).toBe(
      '2 contacts will receive it, from Garden Shop <news@authoring.example> (replies to help@authoring.example).',
    );
    await expectAccessible(page, 'send dialog');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await mailTo('ada@authoring.example', 'Hi Ada');
    await mailTo('grace@authoring.example', 'Hi Grace');
    expect(sink.to('alan@authoring.example')).toEqual([]);
    const mail = received('ada@authoring.example', 'Hi Ada');
    const html = String(mail.html);
    expect(html).toContain('Hello Ada, our garden sale starts now.');
    expect(html).toContain('Spring is here');
    expect(html).toContain('Shop the sale');
    expect(html).not.toContain('{{');
    expect(html).toMatch(/<a href="http[^"]+\/u\/[^"]+">Unsubscribe<\/a>/);
    expect(mail.from?.text).toBe('"Garden Shop" <news@authoring.example>');
    expect(mail.replyTo?.text).toBe('help@authoring.example');
    expect(mail.text).toContain('Hi Ada, the sale is on:');
  });
});

describe('Markdown', () => {
  it('writes in Markdown, kept as Markdown, and sends its HTML with the Liquid intact', async () => {
    await newCampaign('Markdown news', 'Markdown for {{ first_name }}');
    await page.getByRole('radio', { name: 'Markdown' }).check();
    const markdown = '# Big news\n\nHi **{{ first_name | default: "there" }}**, [read more](https://shop.example/).\n\n[Unsubscribe](<{{ unsubscribe_url }}>)';
    await page.getByLabel(/^Markdown content/).fill(markdown);
    await previewAs('ada', 'ada@authoring.example');
    await poll(preview).toContain('<h1>Big news</h1>');
    await poll(preview).toContain('<strong>Ada</strong>');
    await save();
    await page.reload();
    await heading('Markdown news').waitFor();
    await expect.poll(() => page.getByRole('radio', { name: 'Markdown' }).isChecked()).toBe(true);
    expect(await page.getByLabel(/^Markdown content/).inputValue()).toBe(markdown);
    await page.getByLabel(/^To/).fill('ada@authoring.example');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Sent to ada@authoring.example').waitFor();
    await mailTo('ada@authoring.example', '[Test] Markdown for Ada');
    const html = String(received('ada@authoring.example', '[Test] Markdown for Ada').html);
    expect(html).toContain('<strong>Ada</strong>');
    expect(html).not.toContain('{{');
    expect(html).toMatch(/<a href="http[^"]+">Unsubscribe<\/a>/);
  });
});

describe('templates', () => {
  it('creates a campaign from a template, previews it for a contact and sends the template', async () => {
    await newCampaign('Welcome', null);
    await expect.poll(() => page.getByLabel('Content from').inputValue()).toMatch(/^tpl_/);
    expect(await page.getByLabel('Subject', { exact: true }).count()).toBe(0);
    expect(await page.getByRole('radio', { name: 'HTML' }).count()).toBe(0);
    await previewAs('Grace', 'grace@authoring.example');
    await poll(() => page.getByTestId('preview-subject').textContent()).toBe('Welcome Grace');
    await poll(preview).toContain('Template body for Grace');
    await page.getByLabel(/Audience: contacts with any of these tags/).fill('news');
    await save();
    await page.getByRole('button', { name: 'Send now' }).click();
    const dialog = page.getByRole('dialog');
    await poll(() => dialog.getByTestId('send-summary').textContent()).toBe('2 contacts will receive it, from news@authoring.example.');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await mailTo('grace@authoring.example', 'Welcome Grace');
    expect(String(received('grace@authoring.example', 'Welcome Grace').html)).toContain('Template body for Grace');
    expect(pageErrors).toEqual([]);
  });
});

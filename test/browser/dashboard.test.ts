/**
 * The dashboard in a real browser against a real server: sign-in, API keys, serving, size and
 * speed. Each step leaves the state the next one starts from, as a person's session would.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { client, newAccount, startTestServer, type TestAccount } from '../helpers.ts';
import { SmtpSink } from '../smtp-sink.ts';
import { dashboardPage, ensureDashboardBuilt, expectAccessible, launchChromium, screenshot } from './harness.ts';

// A browser step waits on real sends and imports, on a machine shared with other work.
vi.setConfig({ testTimeout: 120_000 });

let sendline: Sendline;
let sink: SmtpSink;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let owner: TestAccount;
/** Script errors and console errors: none may happen. */
const pageErrors: string[] = [];

beforeAll(async () => {
  ensureDashboardBuilt();
  sink = await new SmtpSink().start();
  [sendline, browser] = await Promise.all([
    startTestServer({ SMTP_URL: sink.url, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', TRACKING_MACHINE_OPEN_SECONDS: '0' }),
    launchChromium(),
  ]);
  owner = await newAccount(sendline.url, 'dash');
  ({ context, page } = await dashboardPage(browser, sendline.url, pageErrors));
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await sendline?.stop();
  await sink?.stop();
});

const heading = (name: string) => page.getByRole('heading', { level: 1, name });

describe('serving', () => {
  it('sends / to /app/, and answers every /app path with the page under a self-only CSP', async () => {
    const anon = client(sendline.url);
    const root = await anon('GET', '/');
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app/');
    const deep = await anon('GET', '/app/contacts/ct_123');
    expect(deep.status).toBe(200);
    expect(deep.headers.get('content-type')).toMatch(/^text\/html/);
    expect(deep.headers.get('cache-control')).toBe('no-cache');
    const csp = deep.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self'(;|$)/);
    // Style attributes alone, for the preview's email HTML: no inline script or <style>, no eval, no other host.
    expect(csp.replace("style-src-attr 'unsafe-inline'", '')).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(deep.body as string)![1];
    const asset = await fetch(sendline.url + script, { headers: { 'accept-encoding': 'br, gzip' } });
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await anon('GET', '/app/assets/missing.js')).status).toBe(404);
    // The API is not shadowed.
    expect((await anon('GET', '/api/auth/me')).status).toBe(401);
  });

  it('first load: under 300 KB of compressed JavaScript', async () => {
    const fresh = await browser.newContext();
    const first = await fresh.newPage();
    let bytes = 0;
    first.on('response', (response) => {
      if (response.request().resourceType() === 'script') bytes += Number(response.headers()['content-length'] ?? 0);
    });
    await first.goto(`${sendline.url}/app/`);
    await first.getByRole('heading', { name: 'Sign in to Sendline' }).waitFor();
    await fresh.close();
    console.log(`first load of /app: ${(bytes / 1024).toFixed(1)} KB of compressed JavaScript`);
    expect(bytes).toBeGreaterThan(10_000);
    expect(bytes).toBeLessThan(300 * 1024);
  });
});

describe('sign-in', () => {
  it('logs no error while it finds there is no session to resume', async () => {
    const fresh = await browser.newContext();
    const first = await fresh.newPage();
    // Every console error, a failed request's included: the harness leaves 4xx answers out.
    const logged: string[] = [];
    first.on('console', (message) => void (message.type() === 'error' && logged.push(message.text())));
    await first.goto(`${sendline.url}/app/`);
    await first.getByRole('heading', { name: 'Sign in to Sendline' }).waitFor();
    await fresh.close();
    expect(logged).toEqual([]);
  });

  it('refuses a wrong password with a message, then signs in', async () => {
    await page.goto(`${sendline.url}/`);
    await heading('Sign in to Sendline').waitFor();
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/email or password is wrong/);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  });

  it('keeps the access token out of storage and the refresh token out of reach of scripts', async () => {
    // Scripts see the session's marker only, which holds no secret.
    const stored = await page.evaluate('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
    expect(stored).toBe('{}{}sendline_session=1');
    const cookies = await context.cookies();
    const refresh = cookies.find((cookie) => cookie.name === 'sendline_refresh')!;
    expect(refresh).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth/refresh' });
  });

  it('stays signed in across a reload (the cookie gives a new access token)', async () => {
    await page.goto(`${sendline.url}/app/keys`);
    await heading('API keys').waitFor();
  });
});

describe('API keys', () => {
  it('creates a key with scopes, an allow-list and a rate limit; shows the secret once with a copy button', async () => {
    await page.goto(`${sendline.url}/app/keys`);
    await page.getByText('No API keys yet').waitFor();
    await expectAccessible(page, 'API keys (empty)');
    await page.getByLabel('Name').fill('backend');
    await page.getByLabel('write').uncheck();
    await page.getByLabel(/Allowed addresses/).fill('127.0.0.1/32, ::1/128');
    await page.getByLabel(/Requests a minute/).fill('120');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret').textContent())!;
    expect(secret).toMatch(/^sl_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    await expectAccessible(page, 'API keys (secret shown)');
    await screenshot(page, 'api-keys');

    const row = page.getByRole('row', { name: /backend/ });
    await expect.poll(() => row.textContent()).toMatch(/read.*127\.0\.0\.1\/32.*120.*never/);
    // The key works, and its last use shows.
    const me = await client(sendline.url, { 'x-api-key': secret })('GET', '/api/auth/me');
    expect(me.body.scopes).toEqual(['read']);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.getByTestId('secret').count()).toBe(0);
    // Uses are written within five seconds (KeyUsage): the page is loaded again until it shows.
    await expect
      .poll(
        async () => {
          await page.reload();
          return row.textContent();
        },
        { timeout: 15_000, interval: 1000 },
      )
      .not.toMatch(/never/);
  });
});

describe('contacts', () => {
  it('imports a CSV: preview, column mapping, tags, a progress bar that reaches 100%, counts and the errors file', async () => {
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByText('No contacts yet').waitFor();
    await expectAccessible(page, 'contacts (empty)');
    await page.getByRole('link', { name: 'Import a CSV' }).first().click();
    await heading('Import contacts').waitFor();
    const lines = ['E-mail,first_name,city'];
    for (let i = 0; i < 120; i++) lines.push(`reader${String(i).padStart(3, '0')}@example.com,Reader ${i},${i % 2 ? 'Paris' : 'Lyon'}`);
    lines.push('not an email,Broken,Nowhere');
    await page.getByLabel(/Drop a file here/).setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(lines.join('\n') + '\n') });
    await page.getByRole('cell', { name: 'reader000@example.com' }).waitFor();
    await page.getByLabel('E-mail').selectOption('email');
    await page.getByLabel(/Tags for every contact/).fill('readers');
    await expectAccessible(page, 'import (preview)');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('import-percent').textContent(), { timeout: 20_000 }).toBe('100%');
    await expect.poll(() => page.getByTestId('import-created').textContent()).toBe('120');
    expect(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value')).toBe('100');
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: /Download the rows in error/ }).click();
    expect((await download).suggestedFilename()).toMatch(/errors\.csv$/);
    await screenshot(page, 'import');
  });

  it('lists contacts with search, filters and keyset paging', async () => {
    await page.getByRole('link', { name: 'See the contacts' }).click();
    await heading('Contacts').waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(51);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 2').waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText('Page 3').waitFor();
    await expect.poll(() => page.getByRole('row').count()).toBe(21);
    await expect(page.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText('Page 2').waitFor();
    await page.getByLabel('Search').fill('reader07');
    await expect.poll(() => page.getByRole('row').count()).toBe(11);
    await expect.poll(() => page.getByText('Page 1').count()).toBe(1);
    await page.getByLabel('Status').selectOption('bounced');
    await page.getByText('No contact matches').waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Search').fill('');
    await page.getByLabel('Tag').fill('readers');
    await expect.poll(() => page.getByRole('row').count()).toBe(51);
    await expectAccessible(page, 'contacts');
    await screenshot(page, 'contacts');
  });

  it('shows a contact with its attributes; changes its tags and its status with a reason', async () => {
    await page.getByLabel('Tag').fill('');
    await page.getByLabel('Search').fill('reader001');
    await page.getByRole('link', { name: 'reader001@example.com' }).click();
    await heading('reader001@example.com').waitFor();
    await expect.poll(() => page.locator('.details').textContent()).toMatch(/cityParis/);
    await page.getByLabel('New tag').fill('vip');
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Remove the tag vip' }).waitFor();
    await page.getByLabel('New status').selectOption('unsubscribed');
    await page.getByLabel(/Reason/).fill('asked by phone');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('— asked by phone').waitFor();
    await page.getByLabel('New status').selectOption('subscribed');
    await page.getByLabel(/Reason/).fill('');
    await page.getByRole('button', { name: 'Change status' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/status_reason|reason/i);
    await page.getByLabel(/Reason/).fill('opted in again by email');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('— opted in again by email').waitFor();
    await expectAccessible(page, 'contact');
    await screenshot(page, 'contact');
  });
});

describe('campaigns', () => {
  it('creates a campaign and previews it live for a chosen contact, with template errors at their line and column', async () => {
    await page.getByRole('link', { name: 'Campaigns' }).click();
    await page.getByText('No campaigns yet').waitFor();
    await expectAccessible(page, 'campaigns (empty)');
    await page.getByLabel('Name').fill('Spring news');
    await page.getByLabel('Subject').fill('Hello {{ first_name }}');
    await page.getByLabel('From (email)').fill('news@shop.example');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await heading('Spring news').waitFor();
    // The search offers the contacts found; an import writes its rows at one time, in the order of their random ids.
    await page.getByLabel(/^Preview as/).fill('reader');
    const found = page.getByRole('list', { name: 'Contacts found' }).getByRole('button', { name: /^reader\d+@/ });
    await expect.poll(() => found.count()).toBeGreaterThan(0);
    const chosen = (await found.first().textContent())!.trim();
    const n = Number(/^reader(\d+)@/.exec(chosen)![1]);
    await found.first().click();
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toBe(`Hello Reader ${n}`);
    const content = page.getByLabel('HTML content (Liquid)');
    await content.fill('<p>Hi {{ first_name }} from {{ city }}!</p>\n<p>{{ first_name | shout }}</p>');
    await expect.poll(() => page.getByTestId('template-error').textContent()).toMatch(/shout.*line:2, col:4/);
    await content.fill('<p>Hi {{ first_name }} from {{ city }}!</p><p><a href="https://shop.example/sale">Sale</a></p>');
    // Read from the frame's source: a sandboxed frame runs no script, Playwright's included.
    const frame = page.getByTitle('Email preview');
    await expect.poll(() => frame.getAttribute('srcdoc')).toContain(`Hi Reader ${n} from ${n % 2 ? 'Paris' : 'Lyon'}!`);
    await page.getByLabel(/Audience/).fill('readers');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    await expectAccessible(page, 'campaign editor');
    await screenshot(page, 'campaign-editor');
  });

  it('sends a test to one address', async () => {
    await page.getByLabel(/^To/).fill('tester@example.com');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Sent to tester@example.com').waitFor();
    await expect.poll(() => sink.received.some((mail) => mail.to === 'tester@example.com')).toBe(true);
  });

  it('sends after a confirmation, shows progress, and an open arrives live on the page and its chart', async () => {
    await page.getByRole('button', { name: 'Send now' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(/Send “Spring news” to its audience now/).waitFor();
    await expectAccessible(page, 'send confirmation');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await expect.poll(() => page.getByTestId('campaign-percent').textContent(), { timeout: 30_000 }).toBe('100%');
    await expect.poll(() => page.getByTestId('campaign-sent').textContent()).toBe('120');
    await page.getByText('completed', { exact: true }).first().waitFor();
    await page.getByRole('img', { name: /open/i }).first().waitFor();
    const chart = page.getByTestId('campaign-chart');
    const before = await chart.getAttribute('aria-label');

    // A recipient opens the message: its pixel, fetched as a mail client would.
    const mail = sink.received.find((received) => received.to === 'reader001@example.com')!;
    const pixel = /\/t\/o\/[^"'\s]+\.gif/.exec(String(mail.mail.html))![0];
    expect((await fetch(sendline.url + pixel)).status).toBe(200);
    // No reload: the event comes over the WebSocket and refreshes the figures and the chart.
    await expect.poll(() => page.getByTestId('campaign-opened').textContent(), { timeout: 15_000 }).toBe('1');
    await expect.poll(() => page.getByTestId('analytics-opens').textContent(), { timeout: 15_000 }).toBe('1');
    await expect.poll(() => chart.getAttribute('aria-label'), { timeout: 15_000 }).not.toBe(before);
    await expectAccessible(page, 'campaign sent');
    await screenshot(page, 'campaign-sent');
  });

  it('draws the one hour of engagement as a line, under its legend and clear of the time labels', async () => {
    const chart = page.getByTestId('campaign-chart');
    await chart.scrollIntoViewIfNeeded();
    // The series' colours are the canvas' only saturated pixels (axes, grid and labels are grey).
    const coloured = () =>
      chart.evaluate((element) => {
        const canvas = element.querySelector('canvas')!;
        const scale = canvas.width / element.clientWidth;
        const { data, width, height } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
        const rows = { legend: 0, plot: 0, labels: 0 };
        for (let y = 0; y < height; y++) {
          const band = y < 36 * scale ? 'legend' : y < height - 30 * scale ? 'plot' : 'labels';
          for (let x = 0; x < width; x++) {
            const i = (y * width + x) * 4;
            if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 60 && data[i + 3] > 128) rows[band]++;
          }
        }
        return { ...rows, width: element.clientWidth };
      });
    // A line across the plot, not dots: at least half its width of coloured pixels.
    await expect
      .poll(async () => {
        const drawn = await coloured();
        return drawn.plot > drawn.width / 2;
      })
      .toBe(true);
    const drawn = await coloured();
    expect(drawn.legend).toBeGreaterThan(0);
    expect(drawn.labels).toBe(0);
  });

  it('lists campaigns newest first, with their sent, open, click and bounce rates', async () => {
    const created = await owner.api('POST', '/api/campaigns', {
      body: { name: 'Summer news', subject: 'Summer', from_email: 'news@shop.example', content: '<p>Hi</p>' },
    });
    expect(created.status).toBe(201);
    await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
    const rows = page.getByRole('table', { name: 'Campaigns' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().getByRole('link').textContent()).toBe('Summer news');
    const header = await page.getByRole('table', { name: 'Campaigns' }).locator('thead th').allTextContents();
    const spring = await rows.nth(1).locator('td').allTextContents();
    const cell = (name: string) => spring[header.indexOf(name)];
    // 120 of 120 sent; 1 open of 120 delivered; no click, no bounce.
    expect(cell('Sent')).toMatch(/100\.0%/);
    expect(cell('Open rate')).toBe('0.8%');
    expect(cell('Click rate')).toBe('0.0%');
    expect(cell('Bounce rate')).toBe('0.0%');
    await expectAccessible(page, 'campaigns');
  });

  it('shows the analytics overview and the campaign charts, with a selectable range', async () => {
    await page.getByRole('link', { name: 'Analytics' }).click();
    await heading('Analytics').waitFor();
    await expect.poll(() => page.getByTestId('overview-sent').textContent()).toBe('120');
    await page.getByLabel('Range').selectOption({ label: 'Last 7 days' });
    await expect.poll(() => page.getByTestId('overview-sent').textContent()).toBe('120');
    await page.getByTestId('campaign-chart').waitFor();
    await expectAccessible(page, 'analytics');
    await screenshot(page, 'analytics');
  });
});

describe('key revocation', () => {
  it('revokes a key after a confirmation: it stops working at once', async () => {
    const created = await owner.api('POST', '/api/api-keys', { body: { name: 'to revoke', scopes: ['read'] } });
    const secret: string = created.body.key;
    expect((await client(sendline.url, { 'x-api-key': secret })('GET', '/api/auth/me')).status).toBe(200);
    await page.goto(`${sendline.url}/app/keys`);
    const row = page.getByRole('row', { name: /to revoke/ });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('row', { name: /to revoke/ }).count()).toBe(0);
    expect((await client(sendline.url, { 'x-api-key': secret })('GET', '/api/auth/me')).status).toBe(401);
  });
});

describe('session end', () => {
  it('signs out everywhere: the cookie no longer gives a session', async () => {
    const other = await browser.newContext();
    const second = await other.newPage();
    await second.goto(`${sendline.url}/app/`);
    await second.getByLabel('Email').fill(owner.email);
    await second.getByLabel('Password').fill(owner.password);
    await second.getByRole('button', { name: 'Sign in' }).click();
    await second.getByRole('navigation', { name: 'Main' }).waitFor();
    await second.getByRole('button', { name: 'Sign out everywhere' }).click();
    await second.getByRole('heading', { name: 'Sign in to Sendline' }).waitFor();
    // The first browser's session ended too: a reload lands on the sign-in page.
    await page.reload();
    await heading('Sign in to Sendline').waitFor();
    await other.close();
  });
});

describe('the page', () => {
  it('threw no script error and logged no error', () => {
    expect(pageErrors).toEqual([]);
  });
});

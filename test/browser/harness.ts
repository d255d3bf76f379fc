/** What the dashboard's browser tests share: the build, Debian's Chromium, axe, screenshots. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');

/** `npm install` builds the dashboard; a checkout that skipped it is built here once. */
export function ensureDashboardBuilt(): void {
  if (existsSync(path.join(ROOT, 'dashboard/dist/index.html'))) return;
  execFileSync(path.join(ROOT, 'scripts/node.sh'), [path.join(ROOT, 'node_modules/.bin/vite'), 'build', '--config', 'dashboard/vite.config.ts'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** Debian's Chromium (scripts/ensure-toolchains.sh installs it): Playwright's own download is not used. */
export function launchChromium(): Promise<Browser> {
  const executablePath =
    ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync) ?? execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/**
 * No serious or critical accessibility violation on the page as it is now. Frames are left out:
 * the only one is the campaign preview, an email's own markup in a sandbox that runs no script
 * (axe's included: it would wait for it forever unless the frame is excluded).
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).exclude('iframe').analyze();
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
  expect(serious, `accessibility of ${label}`).toEqual([]);
}

/** A screenshot for the README; secrets on it (`data-testid="secret"`) are masked. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), mask: [page.getByTestId('secret')] });
}

/**
 * A desktop-sized page on `url` that may use the clipboard, collecting script errors and console
 * errors into `errors` (a 4xx is left out: the tests provoke some).
 */
export async function dashboardPage(browser: Browser, url: string, errors: string[]): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => void (message.type() === 'error' && !/status of 4\d\d/.test(message.text()) && errors.push(message.text())));
  return { context, page };
}

/** Signs `who` in through the sign-in page and waits for the menu. */
export async function signIn(page: Page, url: string, who: { email: string; password: string }): Promise<void> {
  await page.goto(`${url}/app/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}

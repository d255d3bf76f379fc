/** What the dashboard's browser tests share: the build, Debian's Chromium, axe, screenshots. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from 'playwright-core';
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

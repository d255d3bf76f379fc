/**
 * The dashboard's speed in Debian's Chromium against a real server: page changes (a click on a
 * menu link until the new page's heading and its data are drawn) and paging the contacts table
 * of an account with 1,000,000 contacts (seeded in SQL), page 1 against page 50, and the API's
 * page at the start, middle and end of the table.
 */
import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount, newApiKey } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { ROOT, benchPool, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const PAGES = 50;
const CHUNK = 250_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};
const ms = (value: number) => value.toFixed(0);

/** The menu's pages, with what shows that the page holds its data. */
const PAGES_VISITED: [link: string, heading: string, ready: string][] = [
  ['Contacts', 'Contacts', 'main tbody tr'],
  ['Lists', 'Lists', 'main tbody tr'],
  ['Segments', 'Segments', 'main tbody tr'],
  ['Templates', 'Templates', 'main tbody tr'],
  ['Transactional emails', 'Transactional emails', 'main tbody tr, main .empty'],
  ['Campaigns', 'Campaigns', 'main tbody tr, main .empty'],
  ['Tags', 'Tags', 'main tbody tr'],
  ['Analytics', 'Analytics', 'main [data-testid="overview-sent"]'],
];

interface Timing {
  total: number;
  /** The longest API request the change made (0 when the data came from the cache). */
  api: number;
}

/** What to click: a menu link by its text, or the pager's Next button. */
type Click = { link: string } | { next: true };
/** What shows the change is done: the heading, an element with data, and for paging the page number and a new first row. */
interface Done {
  heading: string;
  ready: string;
  pageNumber?: number;
  firstRowBefore?: string | null;
}

/**
 * Clicks, in the page, then waits frame by frame until the new content is there and one more
 * frame is drawn: what a person sees. Timed with the page's own clock, so no DevTools round trip counts.
 */
async function timeInPage(page: Page, click: Click, done: Done): Promise<Timing> {
  return page.evaluate<Timing>(`(${IN_PAGE})(${JSON.stringify({ click, done })})`);
}

/** The page's side of `timeInPage`, as source: the root tsconfig has no DOM types, and the page runs it as it is. */
const IN_PAGE = `async ({ click, done }) => {
  const shown = () =>
    document.querySelector('main h1')?.textContent === done.heading &&
    !!document.querySelector(done.ready) &&
    !document.querySelector('main [aria-busy="true"]') &&
    (done.pageNumber === undefined || document.querySelector('main nav.pager span')?.textContent === 'Page ' + done.pageNumber) &&
    (done.firstRowBefore === undefined || document.querySelector('main tbody tr')?.textContent !== done.firstRowBefore);
  const target = click.link
    ? [...document.querySelectorAll('nav#nav a')].find((a) => a.textContent === click.link)
    : [...document.querySelectorAll('main nav.pager button')].find((b) => b.textContent === 'Next');
  if (!target) throw new Error('nothing to click: ' + JSON.stringify(click));
  const start = performance.now();
  target.click();
  await new Promise((resolve) => {
    const check = () => (shown() ? resolve() : requestAnimationFrame(check));
    check();
  });
  await new Promise((resolve) => requestAnimationFrame(resolve));
  const total = performance.now() - start;
  const api = performance
    .getEntriesByType('resource')
    .filter((entry) => entry.name.includes('/api/') && entry.startTime >= start)
    .reduce((longest, entry) => Math.max(longest, entry.responseEnd - entry.startTime), 0);
  performance.clearResourceTimings();
  return { total, api };
}`;

export async function dashboardBenchmark(): Promise<void> {
  if (!existsSync(`${ROOT}/dashboard/dist/index.html`)) throw new Error('build the dashboard first: npm run build:dashboard');
  const dir = scratchDir('dashboard');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', API_KEY_RATE_LIMIT: '100000', ...serverTuning() },
    { keepOutput: !!process.env.BENCH_DEBUG },
  );
  const pool = benchPool(database.url);
  const browser = await chromium.launch({
    executablePath: ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync),
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  try {
    const owner = await newAccount(server.url, 'bench');
    const { key } = (await newApiKey(owner, server.url, { scopes: ['read', 'write'] })).key as { key: string };
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}/api${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    // A few of everything the other pages list.
    for (let i = 1; i <= 5; i++) {
      await post('/lists', { name: `List ${i}` });
      await post('/segments', { name: `Segment ${i}`, rules: { field: 'tags', operator: 'contains', value: `t${i}` } });
      await post('/templates', { name: `template-${i}`, subject: 'Hi {{ first_name }}', html: '<p>Hi</p>' });
    }
    const seedStarted = performance.now();
    for (let from = 0; from < CONTACTS; from += CHUNK) {
      await pool.query(
        `insert into contacts (id, account_id, email, first_name, last_name, status, tags, attributes, created_at)
         select 'ct_bench' || lpad(i::text, 8, '0'), $1, 'reader' || i || '@inbox' || (i % 50) || '.example', 'Reader' || (i % 1000), 'Last' || (i % 5000),
           case when i % 40 = 0 then 'unsubscribed' else 'subscribed' end,
           case when i % 10 = 0 then array['t1', 't2'] when i % 3 = 0 then array['t3'] else array[]::text[] end,
           jsonb_build_object('plan', (array['free', 'pro'])[1 + i % 2]),
           timestamptz '2024-01-01' + i * interval '1 second'
         from generate_series($2::int, $3::int) i`,
        [owner.accountId, from + 1, Math.min(CONTACTS, from + CHUNK)],
      );
    }
    await pool.query('vacuum analyze contacts');
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    // The API's page of 50 at the start, the middle and the end of the table (cursors as the API writes them).
    const cursorAt = async (position: number) => {
      const { rows } = await pool.query<{ created_at: Date; id: string }>(
        `select created_at, id from contacts where account_id = $1 order by created_at, id offset $2 limit 1`,
        [owner.accountId, position],
      );
      return Buffer.from(JSON.stringify([rows[0].created_at.toISOString(), rows[0].id])).toString('base64url');
    };
    const apiPage = async (cursor: string | null) => {
      const times: number[] = [];
      for (let i = 0; i < 23; i++) {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/contacts?limit=50${cursor ? `&cursor=${cursor}` : ''}`, { headers });
        const body = (await res.json()) as { data: unknown[] };
        if (res.status !== 200 || body.data.length !== 50) throw new Error(`contacts page: ${res.status}`);
        if (i >= 3) times.push(performance.now() - started);
      }
      return median(times);
    };
    const apiFirst = await apiPage(null);
    const apiMiddle = await apiPage(await cursorAt(Math.floor(CONTACTS / 2)));
    const apiEnd = await apiPage(await cursorAt(CONTACTS - 51));

    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/app/`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();

    // Page changes: each round starts from a reload (no data cached; page code fetched ahead as
    // after any first load), visits every page (its data fetched), then every page again (cached).
    const cold = new Map<string, Timing[]>();
    const warm = new Map<string, Timing[]>();
    for (let round = 0; round < ROUNDS; round++) {
      await page.goto(`${server.url}/app/keys`);
      await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
      await page.waitForTimeout(1500);
      for (const into of [cold, warm]) {
        for (const [link, heading, ready] of PAGES_VISITED) {
          const timing = await timeInPage(page, { link }, { heading, ready });
          into.set(link, [...(into.get(link) ?? []), timing]);
        }
      }
    }

    // Paging: page 1 reached from the menu, then Next, page after page.
    await page.goto(`${server.url}/app/lists`);
    await page.getByRole('heading', { level: 1, name: 'Lists' }).waitFor();
    await page.waitForTimeout(1500);
    const first = await timeInPage(page, { link: 'Contacts' }, { heading: 'Contacts', ready: 'main tbody tr' });
    const paging: Timing[] = [];
    for (let n = 2; n <= PAGES; n++) {
      const firstRowBefore = await page.locator('main tbody tr').first().textContent();
      paging.push(await timeInPage(page, { next: true }, { heading: 'Contacts', ready: 'main tbody tr', pageNumber: n, firstRowBefore }));
    }
    const lastRow = await page.locator('main tbody tr').last().textContent();
    await context.close();

    const total = (timings: Timing[]) => median(timings.map((t) => t.total));
    const api = (timings: Timing[]) => median(timings.map((t) => t.api));
    const rows = PAGES_VISITED.map(([link]) => `| ${link} | ${ms(total(cold.get(link)!))} | ${ms(api(cold.get(link)!))} | ${ms(total(warm.get(link)!))} |`);
    const allCold = [...cold.values()].flat();
    const allWarm = [...warm.values()].flat();
    const early = paging.slice(0, 9);
    const late = paging.slice(-10);
    const table = [
      `Run: ${runContext()}; Debian Chromium (headless) and the server on the same machine, which other work shared while it ran (figures are medians). ${CONTACTS.toLocaleString('en')} contacts in the account (seeded in SQL in ${seedSeconds.toFixed(0)} s), 5 lists, segments and templates.`,
      '',
      `Page change, click on the menu link to the new page's heading and data drawn (median of ${ROUNDS} rounds; "API" is the page's longest API request):`,
      '',
      '| page | data fetched, ms | of which API, ms | data cached, ms |',
      '|---|---|---|---|',
      ...rows,
      `| **all pages** | **${ms(total(allCold))}** | ${ms(api(allCold))} | **${ms(total(allWarm))}** |`,
      '',
      `Contacts table, ${PAGES} pages of 50 by the Next button (keyset cursors; the last page shown ends with ${JSON.stringify(lastRow?.slice(0, 40))}):`,
      '',
      '| step | ms |',
      '|---|---|',
      `| page 1, from the menu | ${ms(first.total)} (API ${ms(first.api)}) |`,
      `| pages 2–10, median | ${ms(total(early))} (API ${ms(api(early))}) |`,
      `| pages 41–50, median | ${ms(total(late))} (API ${ms(api(late))}) |`,
      '',
      'The API page behind the table (`GET /contacts?limit=50`, median of 20 after 3 warm-up requests, from Node):',
      '',
      '| where in the table | ms |',
      '|---|---|',
      `| first page | ${ms(apiFirst)} |`,
      `| after ${Math.floor(CONTACTS / 2).toLocaleString('en')} contacts | ${ms(apiMiddle)} |`,
      `| the last page (after ${(CONTACTS - 51).toLocaleString('en')}) | ${ms(apiEnd)} |`,
    ].join('\n');
    recordSection('dashboard', table);
    console.log(table);
  } finally {
    await browser.close();
    server.proc.kill('SIGTERM');
    await server.exited;
    await pool.end();
    await database.stop();
  }
}

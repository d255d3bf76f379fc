/**
 * A contact export of a million contacts with ten attributes: request → `completed` → the CSV
 * downloaded, with the server's CPU and peak RSS. The contacts are written by SQL (the import
 * benchmark measures imports); the server is started after, so its peak RSS is the export's.
 */
import pg from 'pg';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { childPostgresPid, cpuSeconds, peakRssMb, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);

export async function exportBenchmark(): Promise<void> {
  const dir = scratchDir('export');
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  let server = await spawnServer({ DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', ...serverTuning() }, { keepOutput: false });
  try {
    const owner = await newAccount(server.url, 'bench');
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    await db.query(
      `insert into contacts (id, account_id, email, first_name, last_name, attributes, tags, status, created_at, updated_at)
       select 'ct_bench' || lpad(i::text, 8, '0'), $1, 'contact' || i || '@example.com', 'First' || i, 'Last' || (i % 1000),
              jsonb_build_object('plan', (array['free', 'pro', 'team'])[i % 3 + 1], 'city', 'City ' || (i % 500), 'score', i % 100,
                'signup_date', '2026-01-01', 'referrer', case when i % 50 = 0 then '=cmd|calc' else 'web' end, 'vip', i % 7 = 0,
                'seats', i % 20, 'country', 'GB', 'language', 'en', 'note', 'a note, with a comma'),
              array['bench', 'tag' || (i % 10)], 'subscribed', now() - make_interval(secs => $2 - i), now()
       from generate_series(1, $2::int) i`,
      [owner.accountId, ROWS],
    );
    await db.query('vacuum analyze contacts');
    await db.end();
    // A fresh server: its peak RSS is what the export costs, not what the setup did.
    server.proc.kill('SIGTERM');
    await server.exited;
    server = await spawnServer({ DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', ...serverTuning() }, { keepOutput: false });
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    const { token } = (await login.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}` };
    const rssBefore = peakRssMb(server.proc.pid!);
    const postgresPid = childPostgresPid();
    const cpuBefore = { server: cpuSeconds(server.proc.pid!), postgres: cpuSeconds(postgresPid) };
    const started = performance.now();
    const created = await fetch(`${server.url}/api/contacts/exports`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
    const { id } = (await created.json()) as { id: string };
    let result: { status: string; rows: number; bytes: number };
    for (;;) {
      result = (await (await fetch(`${server.url}/api/contacts/exports/${id}`, { headers: auth })).json()) as typeof result;
      if (result.status === 'completed' || result.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const written = (performance.now() - started) / 1000;
    if (result.status !== 'completed') throw new Error('the export failed');
    const cpuWritten = { server: cpuSeconds(server.proc.pid!) - cpuBefore.server, postgres: cpuSeconds(postgresPid) - cpuBefore.postgres };
    const rssAfterJob = peakRssMb(server.proc.pid!);
    const downloadStarted = performance.now();
    const download = await fetch(`${server.url}/api/contacts/exports/${id}/download`, { headers: auth });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of download.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines++;
    }
    const downloaded = (performance.now() - downloadStarted) / 1000;
    const rss = peakRssMb(server.proc.pid!);
    if (lines !== ROWS + 1 || bytes !== result.bytes) throw new Error(`downloaded ${lines} lines, ${bytes} bytes; expected ${ROWS + 1}, ${result.bytes}`);
    const perRow = (cpu: number) => ((cpu * 1e6) / ROWS).toFixed(1);
    const table = [
      `Run: ${runContext()}; ${ROWS.toLocaleString('en')} contacts with 10 attributes, ${(bytes / 1e6).toFixed(1)} MB of CSV. The machine is shared: figures vary between runs.`,
      '',
      '| stage | seconds | rows/s | CPU µs per row: server | PostgreSQL |',
      '|---|---|---|---|---|',
      `| \`POST /contacts/exports\` → \`completed\` (the job writes the CSV) | ${written.toFixed(1)} | ${Math.round(ROWS / written)} | ${perRow(cpuWritten.server)} | ${perRow(cpuWritten.postgres)} |`,
      `| download of the CSV | ${downloaded.toFixed(1)} | ${Math.round(ROWS / downloaded)} | – | – |`,
      '',
      `Server peak RSS: **${rss} MB** (${rssBefore} MB started and logged in, before the export; ${rssAfterJob} MB once the job had written the CSV).`,
    ].join('\n');
    recordSection('export', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await database.stop();
  }
}

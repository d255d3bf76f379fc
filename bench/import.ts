/**
 * A million-row CSV through the HTTP API (upload to `completed`), against raw COPY of the same
 * rows into a table with the same unique index: the physical limit, in the same run.
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount } from '../test/client.ts';
import { spawnServer } from '../test/process.ts';
import { generateContactsCsv } from './generate-contacts.ts';
import { childPostgresPid, cpuSeconds, peakRssMb, recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);

/** The valid, de-duplicated rows of the file, as the baseline COPYs them. */
async function cleanCopyOf(source: string, target: string): Promise<number> {
  const seen = new Set<string>();
  const out = createWriteStream(target);
  const lines = readFileSync(source, 'utf8').split('\n');
  out.write(lines[0] + '\n');
  for (const line of lines.slice(1)) {
    const email = line.slice(0, line.indexOf(',')).toLowerCase();
    if (!line || !email.includes('@') || seen.has(email)) continue;
    seen.add(email);
    out.write(line + '\n');
  }
  out.end();
  await once(out, 'finish');
  return seen.size;
}

/** Seconds on the clock, and CPU seconds PostgreSQL spent. */
async function rawCopy(url: string, file: string, postgresPid: number): Promise<{ seconds: number; cpu: number }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`drop table if exists copy_baseline;
      create table copy_baseline (account_id text not null default 'acc_bench', email text, first_name text, last_name text, tags text,
        plan text, city text, signup_date text, score text, referrer text);
      create unique index on copy_baseline (account_id, lower(email));`);
    const [started, cpuBefore] = [performance.now(), cpuSeconds(postgresPid)];
    await pipeline(
      createReadStream(file),
      client.query(copyFrom('copy copy_baseline (email, first_name, last_name, tags, plan, city, signup_date, score, referrer) from stdin with (format csv, header true)')),
    );
    return { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(postgresPid) - cpuBefore };
  } finally {
    await client.end();
  }
}

export async function importBenchmark(): Promise<void> {
  const dir = scratchDir('import');
  const csv = path.join(dir, 'contacts.csv');
  await generateContactsCsv(csv, ROWS);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer({ DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', IMPORT_MAX_BYTES: String(200 * 1024 * 1024), ...serverTuning() }, { keepOutput: false });
  try {
    const owner = await newAccount(server.url, 'bench');
    const postgresPid = childPostgresPid();
    const cpuBefore = { server: cpuSeconds(server.proc.pid!), postgres: cpuSeconds(postgresPid) };
    const started = performance.now();
    const upload = await fetch(`${server.url}/api/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
      body: Readable.toWeb(createReadStream(csv)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const accepted = await upload.json();
    if (upload.status !== 202) throw new Error(`upload failed: ${upload.status} ${JSON.stringify(accepted)}`);
    const uploaded = (performance.now() - started) / 1000;
    let result: any;
    for (;;) {
      // A fresh token every few minutes is not needed: the run takes well under 15.
      const res = await fetch(`${server.url}/api/contacts/import/${accepted.id}`, { headers: { authorization: `Bearer ${owner.token}` } });
      result = await res.json();
      if (result.status === 'completed' || result.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = { server: cpuSeconds(server.proc.pid!) - cpuBefore.server, postgres: cpuSeconds(postgresPid) - cpuBefore.postgres };
    const rss = peakRssMb(server.proc.pid!);
    if (result.status !== 'completed') throw new Error(`import failed: ${JSON.stringify(result.failure)}`);

    const clean = path.join(dir, 'clean.csv');
    const cleanRows = await cleanCopyOf(csv, clean);
    const copy = await rawCopy(database.url, clean, postgresPid);
    const copySeconds = copy.seconds;
    const perRow = (cpuSecs: number, rows: number) => ((cpuSecs * 1e6) / rows).toFixed(1);

    const rate = Math.round(ROWS / seconds);
    const copyRate = Math.round(cleanRows / copySeconds);
    const table = [
      `Run: ${runContext()}; ${ROWS.toLocaleString('en')} rows, ${(statSync(csv).size / 1e6).toFixed(1)} MB.`,
      '',
      '| path | rows | seconds | rows/s | CPU µs per row: server | PostgreSQL |',
      '|---|---|---|---|---|---|',
      `| Sendline: HTTP upload → \`completed\` (upload alone ${uploaded.toFixed(1)} s) | ${ROWS} | ${seconds.toFixed(1)} | ${rate} | ${perRow(cpu.server, ROWS)} | ${perRow(cpu.postgres, ROWS)} |`,
      `| raw \`COPY\` of the valid, distinct rows, same unique index | ${cleanRows} | ${copySeconds.toFixed(1)} | ${copyRate} | – | ${perRow(copy.cpu, cleanRows)} |`,
      '',
      `Ratio Sendline / raw COPY: **${(rate / copyRate).toFixed(2)}**. Server peak RSS: **${rss} MB**.`,
      `Counts: created ${result.created}, updated ${result.updated}, skipped ${result.skipped}, failed ${result.failed}.`,
    ].join('\n');
    recordSection('import', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await database.stop();
  }
}

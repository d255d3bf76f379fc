/**
 * A million-row CSV through the HTTP API (upload to `completed`), against raw COPY of the same
 * rows into a table with the same unique index: the physical limit, in the same run. Also raw
 * COPY of those rows, already in `contacts`' shape, into a table with all of `contacts`' indexes:
 * what PostgreSQL alone can write into that table, with one stream and with two at once.
 */
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { newId } from '../server/db/ids.ts';
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

/**
 * The clean rows as `contacts` rows in COPY text (id, account_id, email, first_name, last_name,
 * attributes, tags), split in `parts` by address. The generator's fields hold no commas, tabs
 * or backslashes, so splitting on commas and dropping quotes reads them.
 */
function contactsShapedCopies(clean: string, parts: number): Buffer[] {
  const out: string[][] = Array.from({ length: parts }, () => []);
  const lines = readFileSync(clean, 'utf8').split('\n').slice(1);
  lines.forEach((line, i) => {
    if (!line) return;
    const [email, first, last, tags, plan, city, signupDate, score, referrer] = line.replaceAll('"', '').split(',');
    const attributes = JSON.stringify({ plan, city, signup_date: signupDate, score, referrer });
    out[i % parts].push(`${newId('ct')}\tacc_bench\t${email}\t${first}\t${last}\t${attributes}\t{${tags.replaceAll('|', ',')}}\n`);
  });
  return out.map((rows) => Buffer.from(rows.join('')));
}

interface CopyRun {
  seconds: number;
  /** CPU seconds PostgreSQL spent. */
  cpu: number;
}

/** Runs `copies` at once, each on its own connection, after `setup`. */
async function timedCopies(url: string, postgresPid: number, setup: string, sql: string, copies: Readable[]): Promise<CopyRun> {
  const clients = copies.map(() => new pg.Client({ connectionString: url }));
  try {
    await Promise.all(clients.map((c) => c.connect()));
    await clients[0].query(setup);
    await clients[0].query('checkpoint');
    const [started, cpuBefore] = [performance.now(), cpuSeconds(postgresPid)];
    await Promise.all(copies.map((source, i) => pipeline(source, clients[i].query(copyFrom(sql)))));
    return { seconds: (performance.now() - started) / 1000, cpu: cpuSeconds(postgresPid) - cpuBefore };
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
}

const rawCopy = (url: string, postgresPid: number, file: string) =>
  timedCopies(
    url,
    postgresPid,
    `drop table if exists copy_baseline;
     create table copy_baseline (account_id text not null default 'acc_bench', email text, first_name text, last_name text, tags text,
       plan text, city text, signup_date text, score text, referrer text);
     create unique index on copy_baseline (account_id, lower(email));`,
    'copy copy_baseline (email, first_name, last_name, tags, plan, city, signup_date, score, referrer) from stdin with (format csv, header true)',
    [createReadStream(file)],
  );

const copyIntoContactsShape = (url: string, postgresPid: number, parts: Buffer[]) =>
  timedCopies(
    url,
    postgresPid,
    'drop table if exists copy_contacts; create table copy_contacts (like contacts including defaults including constraints including indexes);',
    'copy copy_contacts (id, account_id, email, first_name, last_name, attributes, tags) from stdin',
    parts.map((part) => Readable.from([part])),
  );

export async function importBenchmark(): Promise<void> {
  const dir = scratchDir('import');
  const csv = path.join(dir, 'contacts.csv');
  await generateContactsCsv(csv, ROWS);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', IMPORT_MAX_BYTES: String(200 * 1024 * 1024), ...serverTuning() },
    { keepOutput: false },
  );
  try {
    const owner = await newAccount(server.url, 'bench');
    const postgresPid = childPostgresPid();
    const cpuBefore = { server: cpuSeconds(server.proc.pid!), postgres: cpuSeconds(postgresPid) };
    const started = performance.now();
    const upload = await fetch(`${server.url}/api/contacts/import`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
      body: Readable.toWeb(createReadStream(csv)),
      duplex: 'half',
    });
    const accepted = (await upload.json()) as { id: string };
    if (upload.status !== 202) throw new Error(`upload failed: ${upload.status} ${JSON.stringify(accepted)}`);
    const uploaded = (performance.now() - started) / 1000;
    let result: { status: string; failure?: unknown; created: number; updated: number; skipped: number; failed: number };
    for (;;) {
      // A fresh token every few minutes is not needed: the run takes well under 15.
      const res = await fetch(`${server.url}/api/contacts/import/${accepted.id}`, { headers: { authorization: `Bearer ${owner.token}` } });
      result = (await res.json()) as typeof result;
      if (result.status === 'completed' || result.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    const cpu = { server: cpuSeconds(server.proc.pid!) - cpuBefore.server, postgres: cpuSeconds(postgresPid) - cpuBefore.postgres };
    const rss = peakRssMb(server.proc.pid!);
    if (result.status !== 'completed') throw new Error(`import failed: ${JSON.stringify(result.failure)}`);

    const clean = path.join(dir, 'clean.csv');
    const cleanRows = await cleanCopyOf(csv, clean);
    const copy = await rawCopy(database.url, postgresPid, clean);
    const intoContactsOne = await copyIntoContactsShape(database.url, postgresPid, contactsShapedCopies(clean, 1));
    const intoContactsTwo = await copyIntoContactsShape(database.url, postgresPid, contactsShapedCopies(clean, 2));
    const perRow = (cpuSecs: number, rows: number) => ((cpuSecs * 1e6) / rows).toFixed(1);

    const rate = Math.round(ROWS / seconds);
    const copyRate = Math.round(cleanRows / copy.seconds);
    const copyLine = (label: string, run: CopyRun) =>
      `| ${label} | ${cleanRows} | ${run.seconds.toFixed(1)} | ${Math.round(cleanRows / run.seconds)} | – | ${perRow(run.cpu, cleanRows)} |`;
    const tableLimit = Math.round(cleanRows / Math.min(intoContactsOne.seconds, intoContactsTwo.seconds));
    const table = [
      `Run: ${runContext()}; ${ROWS.toLocaleString('en')} rows, ${(statSync(csv).size / 1e6).toFixed(1)} MB.`,
      '',
      '| path | rows | seconds | rows/s | CPU µs per row: server | PostgreSQL |',
      '|---|---|---|---|---|---|',
      `| Sendline: HTTP upload → \`completed\` (upload alone ${uploaded.toFixed(1)} s) | ${ROWS} | ${seconds.toFixed(1)} | ${rate} | ${perRow(cpu.server, ROWS)} | ${perRow(cpu.postgres, ROWS)} |`,
      copyLine('raw `COPY` of the valid, distinct rows, same unique index', copy),
      copyLine("raw `COPY` of those rows in `contacts`' shape, all of its indexes, one stream", intoContactsOne),
      copyLine('the same, two streams at once', intoContactsTwo),
      '',
      `Ratio Sendline / raw COPY: **${(rate / copyRate).toFixed(2)}**. Sendline / the faster COPY into \`contacts\`' indexes: ${(rate / tableLimit).toFixed(2)}. Server peak RSS: **${rss} MB**.`,
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

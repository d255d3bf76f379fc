/**
 * The import's CSV parser beside csv-parse, the maintained library it replaces, on the import
 * benchmark's kind of file: CPU per row of each, and of the import thread's whole per-row work
 * (parse, check, COPY text) with the hand-written parser, in turns in one process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { csvRowReader, toImportRow } from '../server/imports/rows.ts';
import { readCsv } from '../server/imports/csv-records.ts';
import { StagingBatch } from '../server/imports/batch.ts';
import { generateContactsCsv } from './generate-contacts.ts';
import { recordSection, runContext, scratchDir } from './lib.ts';

const ROWS = Number(process.env.BENCH_CSV_ROWS ?? 200_000);
const ROUNDS = 5;
const CHUNK = 64 * 1024;

function chunksOf(file: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < file.length; at += CHUNK) out.push(file.subarray(at, at + CHUNK));
  return out;
}

async function handWritten(chunks: Buffer[]): Promise<number> {
  let rows = 0;
  for await (const records of (await readCsv(Readable.from(chunks), {})).records) rows += records.length;
  return rows;
}

/** csv-parse with the import's rules: a BOM, CRLF/LF/CR, any field count, stray quotes kept, blank lines skipped. */
async function library(chunks: Buffer[]): Promise<number> {
  let rows = -1;
  const parser = Readable.from(chunks).pipe(
    parse({ bom: true, record_delimiter: ['\r\n', '\n', '\r'], relax_column_count: true, relax_quotes: true, skip_empty_lines: true }),
  );
  for await (const record of parser) rows += record.length ? 1 : 0;
  return rows;
}

/** What the import thread does per row, the database aside: parse, check, and write the COPY line. */
async function importThreadWork(chunks: Buffer[]): Promise<number> {
  const csv = await readCsv(Readable.from(chunks), {});
  const rawRow = csvRowReader(csv.columns);
  let row = 0;
  let batch = new StagingBatch();
  for await (const records of csv.records) {
    for (const fields of records) {
      batch.add(toImportRow(++row, rawRow(fields), []));
      if (batch.size >= 5000) batch = new StagingBatch(batch.memory);
    }
  }
  return row;
}

async function cpuMicrosPerRow(work: (chunks: Buffer[]) => Promise<number>, chunks: Buffer[]): Promise<number> {
  const before = process.cpuUsage();
  const rows = await work(chunks);
  const used = process.cpuUsage(before);
  if (rows !== ROWS) throw new Error(`${work.name} read ${rows} rows, not ${ROWS}`);
  return (used.user + used.system) / rows;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

export async function csvBenchmark(): Promise<void> {
  const file = path.join(scratchDir('csv'), 'contacts.csv');
  await generateContactsCsv(file, ROWS);
  const chunks = chunksOf(readFileSync(file));
  const runs = { handWritten: [] as number[], library: [] as number[], importThreadWork: [] as number[] };
  for (const work of [handWritten, library, importThreadWork]) await work(chunks); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const work of [handWritten, library, importThreadWork]) runs[work.name as keyof typeof runs].push(await cpuMicrosPerRow(work, chunks));
  }
  const [ours, theirs, thread] = [median(runs.handWritten), median(runs.library), median(runs.importThreadWork)];
  const share = (theirs - ours) / (thread - ours + theirs);
  const markdown = `Run: ${runContext()}; ${ROWS.toLocaleString('en')} rows (${(readFileSync(file).length / 2 ** 20).toFixed(0)} MB) in 64 KB chunks, ${ROUNDS} rounds in turns, medians.

| parser | CPU µs per row |
|---|---|
| hand-written (\`server/formats/csv-parser.ts\`, through \`readCsv\`) | ${ours.toFixed(2)} |
| csv-parse 7, streamed, same rules | ${theirs.toFixed(2)} |
| the import thread's per-row work with the hand-written parser (parse, check, COPY line) | ${thread.toFixed(2)} |

The hand-written parser saves **${(share * 100).toFixed(0)} %** of the import thread's per-row CPU (${(theirs - ours).toFixed(2)} of the ${(thread - ours + theirs).toFixed(2)} µs a row it would take with csv-parse).`;
  console.log(markdown);
  recordSection('csv', markdown);
}

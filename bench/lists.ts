/**
 * What `list_ids` costs an import: the same CSV imported through the HTTP API into fresh
 * accounts, without lists and with two, alternately (so both meet a database of the same size),
 * in one run on one server.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { createLogger } from '../server/logger.ts';
import { newAccount, type TestAccount } from '../test/client.ts';
import { spawnServer, type ServerProcess } from '../test/process.ts';
import { generateContactsCsv } from './generate-contacts.ts';
import { recordSection, runContext, scratchDir, serverTuning } from './lib.ts';

const ROWS = Number(process.env.BENCH_LISTS_IMPORT_ROWS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_LISTS_ROUNDS ?? 2);

/** Seconds from upload to `completed`. */
async function timedImport(server: ServerProcess, owner: TestAccount, csv: string, listIds: string[]): Promise<number> {
  const started = performance.now();
  const query = listIds.length ? `?list_ids=${listIds.join(',')}` : '';
  const upload = await fetch(`${server.url}/api/contacts/import${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'text/csv' },
    body: Readable.toWeb(createReadStream(csv)),
    duplex: 'half',
  });
  const { id } = (await upload.json()) as { id: string };
  if (upload.status !== 202) throw new Error(`upload failed: ${upload.status}`);
  for (;;) {
    const res = await owner.api('GET', `/api/contacts/import/${id}`);
    if (res.body.status === 'failed') throw new Error(`import failed: ${JSON.stringify(res.body.failure)}`);
    if (res.body.status === 'completed') return (performance.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function listsBenchmark(): Promise<void> {
  const dir = scratchDir('lists');
  const csv = path.join(dir, 'contacts.csv');
  await generateContactsCsv(csv, ROWS);
  const database = await startEmbeddedDatabase(dir, 'bench', createLogger('warn'));
  const server = await spawnServer(
    { DATABASE_URL: database.url, DATA_DIR: dir, ALLOW_SIGNUP: 'true', IMPORT_MAX_BYTES: String(200 * 1024 * 1024), ...serverTuning() },
    { keepOutput: false },
  );
  try {
    const plain: number[] = [];
    const listed: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      plain.push(await timedImport(server, await newAccount(server.url, 'plain'), csv, []));
      const owner = await newAccount(server.url, 'listed');
      const lists = [];
      for (const name of ['News', 'Offers']) lists.push((await owner.api('POST', '/api/lists', { body: { name } })).body.id as string);
      listed.push(await timedImport(server, owner, csv, lists));
      const counts = (await owner.api('GET', `/api/lists/${lists[0]}`)).body.members;
      if (counts.subscribed < ROWS * 0.9) throw new Error(`the list has ${counts.subscribed} members`);
    }
    const best = (runs: number[]) => Math.min(...runs);
    const table = [
      `Run: ${runContext()}; ${ROWS.toLocaleString('en')} rows, ${ROUNDS} rounds, best of each (a shared machine: the ratio is the figure).`,
      '',
      '| import | seconds (each round) | rows/s (best) |',
      '|---|---|---|',
      `| CSV upload → \`completed\`, no lists | ${plain.map((s) => s.toFixed(1)).join(', ')} | ${Math.round(ROWS / best(plain))} |`,
      `| the same with \`list_ids\` of two lists | ${listed.map((s) => s.toFixed(1)).join(', ')} | ${Math.round(ROWS / best(listed))} |`,
      '',
      `Ratio with lists / without: **${(best(plain) / best(listed)).toFixed(2)}** of the rate.`,
    ].join('\n');
    recordSection('lists', table);
    console.log(table);
  } finally {
    server.proc.kill('SIGTERM');
    await server.exited;
    await database.stop();
  }
}

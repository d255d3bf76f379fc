import pg from 'pg';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { openDatabase } from '../server/db/orm.ts';
import { createLogger } from '../server/logger.ts';
import { csvRecords } from '../server/imports/csv-records.ts';
import { fromCsvCells, toImportRow } from '../server/imports/rows.ts';
import { writeBatch } from '../server/imports/writer.ts';
import { createReadStream } from 'node:fs';
const log = createLogger('warn');
const db = await startEmbeddedDatabase('/tmp/imp-timing', 'x', log);
const orm = await openDatabase(db.url, log); await orm.close();
if (process.env.DROP) await new pg.Pool({ connectionString: db.url }).query(process.env.DROP);
const pool = new pg.Pool({ connectionString: db.url });
await pool.query("insert into accounts (id, name) values ('acc_t', 't') on conflict do nothing");
const rows: any[] = [];
for await (const r of csvRecords(createReadStream('/tmp/contacts-200k.csv') as any, {})) { const x = toImportRow(r.row, fromCsvCells(r.cells), []); if (!('code' in x)) rows.push(x); }
const times: number[] = [];
for (let i = 0; i < rows.length; i += 5000) {
  const c = await pool.connect();
  await c.query('begin');
  const orig = c.query.bind(c);
  const explain = i === 100000;
  const t0 = performance.now();
  if (explain) (c as any).query = (q: any, p: any) => {
    if (typeof q === 'string' && q.trim().startsWith('with batch')) return orig('explain (analyze, buffers) ' + q, p).then((r: any) => { console.log(r.rows.map((x: any) => x['QUERY PLAN']).filter((l: string) => /actual time|Insert|Update|Scan|Join|Tuples/.test(l)).join('\n')); return { rows: [{ created: 0, updated: 0 }] }; });
    return orig(q, p);
  };
  await writeBatch(c as any, { importId: 'imp_t', accountId: 'acc_t', mode: 'upsert' }, rows.slice(i, i + 5000), []);
  await c.query('commit');
  times.push(Math.round(performance.now() - t0));
  c.release();
}
console.log(times.join(' '));
await pool.end(); await db.stop();

import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import { inTransaction, type Pool, type PoolClient } from '../db/pool.ts';
import { insertEvents } from '../events/outbox.ts';
import { decodeCursor, toPage } from '../http/pagination.ts';
import { Problem, notFound } from '../http/problem.ts';
import type { Logger } from '../logger.ts';
import type { Queue } from '../jobs/queue.ts';
import { readCsv } from './csv-records.ts';
import { ImportFileError, type RowError } from './errors.ts';
import { importsSql, type ImportRecord } from './repository.ts';
import { csvRowReader, toImportRow, type ImportRow, type RawRow } from './rows.ts';
import { writeBatch, writerFor, type ImportMode } from './writer.ts';

/** How many rows the parser reads between turns of the event loop. */
const YIELD_EVERY_ROWS = 100;

export const IMPORT_JOB = 'contacts.import';
const CHUNK_BYTES = 1024 * 1024;
const ERRORS_SHOWN = 100;

export interface ImportOptions {
  mode: ImportMode;
  tags: string[];
  mapping: Record<string, string>;
}

/** An import as the API shows it, with its first errors. */
export function importJson(r: ImportRecord, errors: RowError[]) {
  return {
    id: r.id,
    status: r.status,
    mode: r.mode,
    total_rows: r.total_rows,
    processed_rows: r.processed_rows,
    created: r.created,
    updated: r.updated,
    skipped: r.skipped,
    failed: r.failed,
    errors,
    failure: r.failure_code ? { code: r.failure_code, detail: r.failure_detail ?? '', row: r.failure_row } : null,
    created_at: r.created_at.toISOString(),
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

export type ImportJson = ReturnType<typeof importJson>;

const completedEvent = (r: ImportRecord) => ({
  import_id: r.id,
  status: r.status,
  total_rows: r.total_rows,
  created: r.created,
  updated: r.updated,
  skipped: r.skipped,
  failed: r.failed,
});

/** Counts lines as bytes stream by: an upper bound of the rows, known before any parsing. */
function lineCounter() {
  let lines = 0;
  let last = 0x0a;
  return {
    add(chunk: Buffer) {
      for (let i = chunk.indexOf(0x0a); i !== -1; i = chunk.indexOf(0x0a, i + 1)) lines++;
      if (chunk.length) last = chunk[chunk.length - 1];
    },
    get dataRows() {
      return Math.max(0, lines + (last === 0x0a ? 0 : 1) - 1);
    },
  };
}

export class ImportService {
  private readonly pool: Pool;
  private readonly queue: Queue;
  private readonly limits: Config['imports'];
  private readonly log: Logger;

  constructor(pool: Pool, queue: Queue, limits: Config['imports'], log: Logger) {
    this.pool = pool;
    this.queue = queue;
    this.limits = limits;
    this.log = log;
  }

  get maxBytes(): number {
    return this.limits.maxBytes;
  }

  private async checkConcurrency(accountId: string): Promise<void> {
    if ((await importsSql.activeCount(this.pool, accountId)) >= this.limits.maxConcurrentPerAccount) {
      throw new Problem(429, 'too_many_imports', `At most ${this.limits.maxConcurrentPerAccount} imports run at once per account; wait for one to finish.`, {
        headers: { 'Retry-After': '10' },
      });
    }
  }

  /** A JSON import (at most 10,000 rows) runs at once, all or nothing, in one transaction. */
  async importJson(accountId: string, rawRows: RawRow[], options: Omit<ImportOptions, 'mapping'>): Promise<ImportJson> {
    const id = newId('imp');
    const record = await inTransaction(this.pool, async (client) => {
      await importsSql.insert(client, { id, accountId, status: 'running', mode: options.mode, tags: options.tags, mapping: {} });
      const rows: ImportRow[] = [];
      const errors: RowError[] = [];
      rawRows.forEach((raw, i) => {
        const checked = toImportRow(i + 1, raw, options.tags);
        ('code' in checked ? errors : rows).push(checked as never);
      });
      const counts = await writeBatch(client, { importId: id, accountId, mode: options.mode }, rows, errors);
      await importsSql.advance(client, id, 0, rawRows.length, counts);
      return this.complete(client, id, { status: 'completed' });
    });
    return importJson(record, await importsSql.firstErrors(this.pool, id, ERRORS_SHOWN));
  }

  /**
   * Stores an uploaded CSV in the database as it streams in (never whole in memory), then
   * queues it. Over the size or row limit, nothing is kept and the answer is 413. `options`
   * is read once the stream has ended (multipart fields may follow the file).
   */
  async importUpload(accountId: string, source: AsyncIterable<Buffer>, options: () => ImportOptions): Promise<ImportJson> {
    await this.checkConcurrency(accountId);
    const id = newId('imp');
    await inTransaction(this.pool, async (client) => {
      await importsSql.insert(client, { id, accountId, status: 'queued', mode: 'upsert', tags: [], mapping: {} });
      const lines = lineCounter();
      let bytes = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const store = async () => {
        await importsSql.addChunk(client, id, seq++, Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
      };
      for await (const chunk of source) {
        bytes += chunk.length;
        if (bytes > this.limits.maxBytes) throw new Problem(413, 'payload_too_large', `An import may be at most ${this.limits.maxBytes} bytes.`);
        lines.add(chunk);
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= CHUNK_BYTES) await store();
      }
      if (pendingBytes) await store();
      if (lines.dataRows > this.limits.maxRows) {
        throw new Problem(413, 'too_many_rows', `An import may have at most ${this.limits.maxRows} rows; this file has ${lines.dataRows} lines of data.`);
      }
      await importsSql.describeUpload(client, id, { ...options(), bytes, estimatedRows: lines.dataRows });
    });
    await this.queue.enqueue(IMPORT_JOB, { importId: id });
    return this.get(accountId, id);
  }

  async get(accountId: string, id: string): Promise<ImportJson> {
    const record = await importsSql.get(this.pool, accountId, id);
    if (!record) throw notFound('import');
    return importJson(record, await importsSql.firstErrors(this.pool, id, ERRORS_SHOWN));
  }

  async list(accountId: string, limit: number, cursor?: string) {
    const rows = await importsSql.page(this.pool, accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (r) => ({ at: r.created_at, id: r.id }), (r) => importJson(r, []));
  }

  /** Every failed row as CSV lines, header first. */
  async *errorsCsv(accountId: string, id: string): AsyncGenerator<string> {
    if (!(await importsSql.get(this.pool, accountId, id))) throw notFound('import');
    const cell = (v: string | number | null) => (v === null ? '' : /[",\r\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
    yield 'row,email,code,detail\r\n';
    for await (const e of importsSql.allErrors(this.pool, id)) yield [e.row, e.email, e.code, e.detail].map(cell).join(',') + '\r\n';
  }

  /** After a restart: queue every import left unfinished (its runner takes over or sees it is taken). */
  async resumeUnfinished(): Promise<number> {
    const { rows } = await this.pool.query("select id from contact_imports where status in ('queued', 'running')");
    for (const { id } of rows) await this.queue.enqueue(IMPORT_JOB, { importId: id });
    return rows.length;
  }

  /**
   * The queued job: streams the stored file, writes it in batches, each committed with its
   * checkpoint. After a crash it resumes at the checkpoint, so the counts come out as in an
   * uninterrupted run. An advisory lock keeps a second runner of the same import away.
   */
  async run(id: string, control: { signal: AbortSignal; touch: () => Promise<void> }): Promise<void> {
    const lock = await this.pool.connect();
    try {
      const { rows: [{ locked }] } = await lock.query('select pg_try_advisory_lock(hashtext($1)) as locked', [id]);
      if (!locked) return;
      try {
        await this.process(id, control);
      } finally {
        await lock.query('select pg_advisory_unlock(hashtext($1))', [id]);
      }
    } finally {
      lock.release();
    }
  }

  private async process(id: string, control: { signal: AbortSignal; touch: () => Promise<void> }): Promise<void> {
    const record = await importsSql.get(this.pool, null, id);
    if (!record || record.status === 'completed' || record.status === 'failed') return;
    const checkpoints = await importsSql.markRunning(this.pool, id, this.limits.writers);
    const target = { importId: id, accountId: record.account_id, mode: record.mode };
    // Each writer owns the addresses that hash to it and writes its batches in file order, one
    // at a time, while the parser and the other writers go on: PostgreSQL updates the contacts'
    // indexes on one core per transaction. A writer's checkpoint commits with its batch.
    const writers = checkpoints.map((checkpoint) => ({ checkpoint, rows: [] as ImportRow[], errors: [] as RowError[], writing: Promise.resolve() }));
    const resumeAfter = Math.min(...checkpoints);
    let row = 0;
    const flush = async (index: number) => {
      const writer = writers[index];
      await writer.writing;
      if (!writer.rows.length && !writer.errors.length && writer.checkpoint >= row) return;
      const [batchRows, batchErrors, upTo] = [writer.rows, writer.errors, row];
      writer.rows = [];
      writer.errors = [];
      writer.checkpoint = upTo;
      writer.writing = inTransaction(this.pool, async (client) => {
        // A batch commits with its checkpoint, so one lost with the last moments of WAL in a
        // crash is written again on resume; the synchronous final commit makes them all durable.
        await client.query('set local synchronous_commit = off');
        const counts = await writeBatch(client, target, batchRows, batchErrors);
        await importsSql.advance(client, id, index, upTo, counts);
      }).then(() => control.touch());
      // Awaited at the writer's next batch; a failure must not go unhandled until then.
      writer.writing.catch(() => {});
    };
    const settle = () => Promise.all(writers.map((w) => w.writing));
    const flushAll = async () => {
      for (let i = 0; i < writers.length; i++) await flush(i);
      await settle();
    };
    try {
      const csv = await readCsv(importsSql.chunks(this.pool, id), record.mapping);
      const rawRow = csvRowReader(csv.columns);
      for await (const records of csv.records) {
        for (const fields of records) {
          if (++row <= resumeAfter) continue;
          const checked = toImportRow(row, rawRow(fields), record.tags);
          const failed = 'code' in checked;
          const index = failed ? row % writers.length : writerFor(checked.email, writers.length);
          const writer = writers[index];
          if (row <= writer.checkpoint) continue;
          if (failed) writer.errors.push(checked);
          else writer.rows.push(checked);
          // A chunk holds thousands of records: yield now and then so the batches being written
          // get their replies handled instead of waiting for the parser.
          if (row % YIELD_EVERY_ROWS === 0) await new Promise(setImmediate);
          if (writer.rows.length + writer.errors.length >= this.limits.batchRows) {
            await flush(index);
            if (control.signal.aborted) {
              await settle();
              // Shutting down: the checkpoints are committed; any live worker picks up from there.
              await this.queue.enqueue(IMPORT_JOB, { importId: id });
              return;
            }
          }
        }
      }
      await flushAll();
      await inTransaction(this.pool, (client) => this.complete(client, id, { status: 'completed' }));
    } catch (error) {
      // Rows read before the fault are good: keep them, then fail the import where it broke.
      await flushAll();
      const failure =
        error instanceof ImportFileError
          ? { code: error.code, detail: error.message, row: error.row }
          : { code: 'internal_error', detail: 'The import stopped on an unexpected error; it has been logged.', row: null };
      if (!(error instanceof ImportFileError)) this.log.error({ err: error, importId: id }, 'import failed');
      await inTransaction(this.pool, (client) => this.complete(client, id, { status: 'failed', ...failure }));
    }
  }

  private async complete(client: PoolClient, id: string, outcome: Parameters<typeof importsSql.finish>[2]): Promise<ImportRecord> {
    const record = await importsSql.finish(client, id, outcome);
    await insertEvents(client, record.account_id, [{ type: 'import.completed', data: completedEvent(record) }]);
    return record;
  }
}

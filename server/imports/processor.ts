import { sql } from 'kysely';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { append } from '../events/outbox.ts';
import type { Logger } from '../logger.ts';
import { readCsv } from './csv-records.ts';
import { ImportFileError } from './errors.ts';
import { importStore, type BatchCounts, type ImportOutcomeRecord, type ImportRecord } from './store.ts';
import { StagingBatch } from './batch.ts';
import { csvRowReader, toImportRow } from './rows.ts';
import { writeBatch, writerFor } from './writer.ts';
import { fieldSchema } from '../fields/definitions.ts';
import { analyzeAfterBulkWrite } from '../db/statistics.ts';

/**
 * A batch is written at `IMPORT_BATCH_ROWS` rows or at this much COPY text, whichever comes
 * first: rows can carry up to 16 KB of custom fields, and a batch's text is memory outside the
 * thread's capped heap.
 */
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** How many rows the parser reads between turns of the event loop. */
const YIELD_EVERY_ROWS = 100;

export interface ImportControl {
  /** Aborted on shutdown: the import stops after committing its batches in flight. */
  signal: AbortSignal;
  /** Called after each committed batch, with its counts: the job is alive. */
  touch: (counts: BatchCounts) => void;
}

/** `interrupted`: stopped by the signal with its checkpoints committed; it must be queued again. */
export type ImportOutcome = 'finished' | 'interrupted';

const completedEvent = (r: ImportRecord, status: ImportOutcomeRecord['status']) => ({
  import_id: r.id,
  status,
  total_rows: r.total_rows,
  created: r.created,
  updated: r.updated,
  skipped: r.skipped,
  failed: r.failed,
});

/**
 * Refreshes the statistics of what an import wrote, before it is seen as finished: a list read
 * right after it would otherwise be planned as if the account had none of its rows.
 */
export async function analyzeImported(db: Db, record: Pick<ImportRecord, 'created' | 'updated' | 'list_ids'>): Promise<void> {
  await analyzeAfterBulkWrite(db, record.list_ids.length ? ['contacts', 'list_members'] : ['contacts'], record.created + record.updated);
}

/** Ends an import and writes its one `import.completed` event, in the caller's transaction. */
export async function finishImport(tx: Db, accountId: string, id: string, outcome: ImportOutcomeRecord): Promise<ImportRecord> {
  const record = await importStore.finish(tx, accountId, id, outcome);
  await append(tx, record.account_id, [{ type: 'import.completed', data: completedEvent(record, outcome.status) }]);
  return record;
}

/** The import thread's database: transactions for the batches (COPY), typed SQL for the rest. */
export interface ImportDatabase {
  transactions: Transactions;
  db: Db;
}

/**
 * Streams an uploaded file from the database and writes it in batches, each committed with its
 * checkpoint. After a crash it resumes at the checkpoints, so the counts come out as in an
 * uninterrupted run. The caller holds the import's lock.
 */
export class ImportProcessor {
  private readonly transactions: Transactions;
  private readonly db: Db;
  private readonly limits: Config['imports'];
  private readonly log: Logger;

  constructor(database: ImportDatabase, limits: Config['imports'], log: Logger) {
    this.transactions = database.transactions;
    this.db = database.db;
    this.limits = limits;
    this.log = log;
  }

  async process(id: string, control: ImportControl): Promise<ImportOutcome> {
    const record = await importStore.get(this.db, null, id);
    if (!record || record.status === 'completed' || record.status === 'failed') return 'finished';
    const checkpoints = await importStore.markRunning(this.db, record.account_id, id, this.limits.writers);
    const target = { importId: id, accountId: record.account_id, mode: record.mode, listIds: record.list_ids };
    // The custom fields as the import starts: every row is checked against these, with no query per row.
    const fields = await fieldSchema(this.db, record.account_id);
    // Each writer owns the addresses that hash to it and writes its batches in file order, one
    // at a time, while the parser and the other writers go on: PostgreSQL updates the contacts'
    // indexes on one core per transaction. A writer's checkpoint commits with its batch.
    // A written batch's memory takes the writer's next batch but one (`spare`): fresh memory for
    // each batch made the thread collect its old generation twice as often.
    const writers = checkpoints.map((checkpoint) => ({
      checkpoint,
      batch: new StagingBatch(),
      spare: undefined as Buffer | undefined,
      writing: Promise.resolve(),
    }));
    const resumeAfter = Math.min(...checkpoints);
    let row = 0;
    const flush = async (index: number) => {
      const writer = writers[index];
      await writer.writing;
      if (!writer.batch.size && writer.checkpoint >= row) return;
      const [batch, upTo] = [writer.batch, row];
      writer.batch = new StagingBatch(writer.spare);
      writer.spare = undefined;
      writer.checkpoint = upTo;
      writer.writing = this.transactions
        .run(async (db) => {
          // A batch commits with its checkpoint, so one lost with the last moments of WAL in a
          // crash is written again on resume; the synchronous final commit makes them all durable.
          await sql`set local synchronous_commit = off`.execute(db);
          const counts = await writeBatch(db, target, batch);
          await importStore.advance(db, record.account_id, id, index, upTo, counts);
          return counts;
        })
        .then((counts) => {
          writer.spare = batch.memory;
          control.touch(counts);
        });
      // Awaited at the writer's next batch; a failure must not go unhandled until then.
      writer.writing.catch(() => {});
    };
    const settle = () => Promise.all(writers.map((w) => w.writing));
    const flushAll = async () => {
      for (let i = 0; i < writers.length; i++) await flush(i);
      await settle();
    };
    try {
      const csv = await readCsv(importStore.chunks(this.db, record.account_id, id), record.mapping);
      const rawRow = csvRowReader(csv.columns);
      for await (const records of csv.records) {
        for (const cells of records) {
          if (++row <= resumeAfter) continue;
          const checked = toImportRow(row, rawRow(cells), record.tags, fields);
          const index = 'code' in checked ? row % writers.length : writerFor(checked.email, writers.length);
          const writer = writers[index];
          if (row <= writer.checkpoint) continue;
          writer.batch.add(checked);
          // A chunk holds thousands of records: yield now and then so the batches being written
          // get their replies handled instead of waiting for the parser.
          if (row % YIELD_EVERY_ROWS === 0) await new Promise(setImmediate);
          if (writer.batch.size >= this.limits.batchRows || writer.batch.byteLength >= MAX_BATCH_BYTES) {
            await flush(index);
            if (control.signal.aborted) {
              await settle();
              return 'interrupted';
            }
          }
        }
      }
      await flushAll();
      await this.analyzeWritten(id);
      await this.transactions.run((tx) => finishImport(tx, record.account_id, id, { status: 'completed' }));
    } catch (error) {
      // Rows read before the fault are good: keep them, then fail the import where it broke. A
      // writer whose batch failed has nothing more to keep; the others still write theirs.
      await Promise.allSettled(writers.map((_, index) => flush(index)));
      await Promise.allSettled(writers.map((w) => w.writing));
      const failure =
        error instanceof ImportFileError
          ? { code: error.code, detail: error.message, row: error.row }
          : { code: 'internal_error', detail: 'The import stopped on an unexpected error; it has been logged.', row: null };
      if (!(error instanceof ImportFileError)) this.log.error({ err: error, importId: id }, 'import failed');
      await this.analyzeWritten(id).catch(() => {});
      await this.transactions.run((tx) => finishImport(tx, record.account_id, id, { status: 'failed', ...failure }));
    }
    return 'finished';
  }

  private async analyzeWritten(id: string): Promise<void> {
    const written = await importStore.get(this.db, null, id);
    if (written) await analyzeImported(this.db, written);
  }
}

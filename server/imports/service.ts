import { IMPORT_JOB } from '../jobs/payloads.ts';
import type { Config } from '../config.ts';
import { newId } from '../db/ids.ts';
import { sqlOf, type Db } from '../db/kysely.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Transactions } from '../db/transactions.ts';
import { csvLine } from '../formats/csv.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { Problem, notFound, validationFailed } from '../contract/problem.ts';
import type { Queue } from '../jobs/queue.ts';
import type { ImportMode } from './entities.ts';
import type { RowError } from './errors.ts';
import { analyzeImported, finishImport } from './processor.ts';
import { importStore, type ImportRecord } from './store.ts';
import { StagingBatch } from './batch.ts';
import { toImportRow, type RawRow } from './rows.ts';
import { writeBatch } from './writer.ts';
import { fieldSchema } from '../fields/definitions.ts';

const CHUNK_BYTES = 1024 * 1024;
const ERRORS_SHOWN = 100;

export interface ImportOptions {
  mode: ImportMode;
  tags: string[];
  mapping: Record<string, string>;
  /** Lists every imported contact joins. */
  listIds: string[];
}

/** The lists an import may name: the lists' store, handed in by the composition root. */
export interface ImportLists {
  /** The account's lists among `ids`, read in whatever transaction `db` is. */
  existing(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>>;
}

/** An import adds only to lists of the account. */
async function checkLists(lists: ImportLists, db: Db, accountId: string, listIds: string[], pointer: string): Promise<void> {
  const known = await lists.existing(db, accountId, listIds);
  const unknown = listIds.filter((id) => !known.has(id));
  if (unknown.length) throw validationFailed([{ pointer, detail: `${unknown.join(', ')} is not a list of this account` }]);
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
  private readonly em: EntityManager;
  private readonly transactions: Transactions;
  private readonly queue: Queue;
  private readonly limits: Config['imports'];
  private readonly lists: ImportLists;

  /** `transactions`: for a JSON import (its batch is COPYed) and an upload, each in one transaction. */
  constructor(em: EntityManager, transactions: Transactions, queue: Queue, limits: Config['imports'], lists: ImportLists) {
    this.em = em;
    this.transactions = transactions;
    this.queue = queue;
    this.limits = limits;
    this.lists = lists;
  }

  /** Typed SQL on the ORM's connection (or the transaction `em` is in). */
  private get db(): Db {
    return sqlOf(this.em);
  }

  get maxBytes(): number {
    return this.limits.maxBytes;
  }

  private async checkConcurrency(accountId: string): Promise<void> {
    if ((await importStore.activeCount(this.db, accountId)) >= this.limits.maxConcurrentPerAccount) {
      throw new Problem(429, 'too_many_imports', `At most ${this.limits.maxConcurrentPerAccount} imports run at once per account; wait for one to finish.`, {
        headers: { 'Retry-After': '10' },
      });
    }
  }

  /** A JSON import (at most 10,000 rows) runs at once, all or nothing, in one transaction. */
  async importJson(accountId: string, rawRows: RawRow[], options: Omit<ImportOptions, 'mapping'>): Promise<ImportJson> {
    const id = newId('imp');
    await checkLists(this.lists, this.db, accountId, options.listIds, '/list_ids');
    const record = await this.transactions.run(async (db) => {
      await importStore.create(db, { id, accountId, status: 'running', mode: options.mode, tags: options.tags, mapping: {}, listIds: options.listIds });
      const batch = new StagingBatch();
      const fields = await fieldSchema(db, accountId);
      rawRows.forEach((raw, i) => batch.add(toImportRow(i + 1, raw, options.tags, fields)));
      const counts = await writeBatch(db, { importId: id, accountId, mode: options.mode, listIds: options.listIds }, batch);
      await importStore.advance(db, accountId, id, 0, rawRows.length, counts);
      return finishImport(db, accountId, id, { status: 'completed' });
    });
    await analyzeImported(this.db, record);
    return importJson(record, await importStore.firstErrors(this.db, accountId, id, ERRORS_SHOWN));
  }

  /**
   * Stores an uploaded CSV in the database as it streams in (never whole in memory), then
   * queues it. Over the size or row limit, nothing is kept and the answer is 413. `options`
   * is read once the stream has ended (multipart fields may follow the file).
   */
  async importUpload(accountId: string, source: AsyncIterable<Buffer>, options: () => ImportOptions): Promise<ImportJson> {
    await this.checkConcurrency(accountId);
    const id = newId('imp');
    await this.transactions.run(async (trx) => {
      await importStore.create(trx, { id, accountId, status: 'queued', mode: 'upsert', tags: [], mapping: {}, listIds: [] });
      const lines = lineCounter();
      let bytes = 0;
      let seq = 0;
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const store = async () => {
        await importStore.addChunk(trx, accountId, id, seq++, Buffer.concat(pending));
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
      const chosen = options();
      await checkLists(this.lists, trx, accountId, chosen.listIds, 'list_ids');
      await importStore.describeUpload(trx, accountId, id, { ...chosen, bytes, estimatedRows: lines.dataRows });
    });
    await this.queue.enqueue(IMPORT_JOB, { importId: id });
    return this.get(accountId, id);
  }

  async get(accountId: string, id: string): Promise<ImportJson> {
    const record = await importStore.get(this.db, accountId, id);
    if (!record) throw notFound('import');
    return importJson(record, await importStore.firstErrors(this.db, accountId, id, ERRORS_SHOWN));
  }

  async list(accountId: string, limit: number, cursor?: string) {
    const rows = await importStore.page(this.db, accountId, decodeCursor(cursor), limit);
    return toPage(
      rows,
      limit,
      (r) => ({ at: r.created_at, id: r.id }),
      (r) => importJson(r, []),
    );
  }

  /** Every failed row as CSV lines, header first. */
  async *errorsCsv(accountId: string, id: string): AsyncGenerator<string> {
    if (!(await importStore.get(this.db, accountId, id))) throw notFound('import');
    yield csvLine(['row', 'email', 'code', 'detail']);
    for await (const e of importStore.allErrors(this.db, accountId, id)) yield csvLine([e.row, e.email, e.code, e.detail]);
  }
}

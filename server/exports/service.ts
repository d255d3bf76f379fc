import { EXPORT_JOB } from '../jobs/payloads.ts';
import type { components } from '../../generated/openapi.d.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/kysely.ts';
import type { Queue } from '../jobs/queue.ts';
import { notFound, Problem } from '../contract/problem.ts';
import { to as copyTo } from 'pg-copy-streams';
import type { Pool } from '../db/pool.ts';
import type { Transactions } from '../db/transactions.ts';
import { CopyCsvWriter } from './copy-csv.ts';
import { exportCopySql, headerLine, planExport } from './csv-writer.ts';
import { exportsStore, type ExportListed, type StoredFilters } from './store.ts';

type ContactExportJson = components['schemas']['ContactExport'];
type ContactExportFilters = components['schemas']['ContactExportFilters'];

/** How long an export's CSV is kept. */
export const EXPORT_KEPT_MS = 24 * 3600_000;

/**
 * Chunks of about 48 KB of whole lines: the download reads one at a time, and a chunk under V8's
 * 128 KB large-object size is born in the young generation and collected there.
 */
const CHUNK_BYTES = 48 * 1024;

const iso = (d: Date | null) => d?.toISOString() ?? null;

const exportJson = (e: ExportListed): ContactExportJson => ({
  id: e.id,
  status: e.status,
  filters: e.filters,
  rows: e.rows,
  bytes: e.bytes,
  error: e.error,
  created_at: e.created_at.toISOString(),
  started_at: iso(e.started_at),
  completed_at: iso(e.completed_at),
  expires_at: e.expires_at.toISOString(),
});

/** Contact exports: started through the API, written by a job, downloaded as they were written. */
export class ExportService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly queue: Queue;
  private readonly pool: Pool;
  private readonly limits: Config['exports'];

  constructor(db: Db, transactions: Transactions, queue: Queue, pool: Pool, limits: Config['exports']) {
    this.db = db;
    this.transactions = transactions;
    this.queue = queue;
    this.pool = pool;
    this.limits = limits;
  }

  async create(accountId: string, filters: ContactExportFilters): Promise<ContactExportJson> {
    const stored: StoredFilters = {};
    for (const [key, value] of Object.entries(filters)) if (typeof value === 'string' || Array.isArray(value)) stored[key] = value;
    const created = await exportsStore.insertWithin(this.transactions, this.limits.maxConcurrentPerAccount, {
      account_id: accountId,
      filters: stored,
      expires_at: new Date(Date.now() + EXPORT_KEPT_MS),
    });
    if (!created) {
      throw new Problem(429, 'too_many_exports', `At most ${this.limits.maxConcurrentPerAccount} exports run at once per account; wait for one to finish.`, {
        headers: { 'Retry-After': '10' },
      });
    }
    await this.queue.enqueue(EXPORT_JOB, { exportId: created.id });
    return exportJson(created);
  }

  async get(accountId: string, id: string): Promise<ContactExportJson> {
    const found = await exportsStore.byId(this.db, accountId, id);
    if (!found) throw notFound('export');
    return exportJson(found);
  }

  /** The CSV's chunks, read one at a time; checks the export first, so errors come before any byte. */
  async download(accountId: string, id: string): Promise<AsyncIterable<Buffer>> {
    const found = await exportsStore.byId(this.db, accountId, id);
    if (!found) throw notFound('export');
    if (found.status !== 'completed') {
      throw new Problem(409, 'export_not_ready', `The export is ${found.status}.`, { extra: { current_status: found.status } });
    }
    const pool = this.pool;
    return (async function* () {
      for (let seq = 0; ; seq++) {
        const data = await exportsStore.chunk(pool, accountId, id, seq);
        if (!data) return;
        // Written as the bytes stored: no text copy of each chunk to collect.
        yield data;
      }
    })();
  }

  /**
   * The job: PostgreSQL writes the CSV (`COPY … TO STDOUT`, one statement, one snapshot),
   * `CopyCsvWriter` finishes it as it streams in, and it is stored in chunks of whole lines with
   * the progress they bring; then the export is marked completed (or failed). The COPY waits
   * while a chunk is stored, so memory holds about one chunk.
   */
  async run(exportId: string): Promise<void> {
    const found = await exportsStore.byId(this.db, null, exportId);
    if (!found || !(await exportsStore.start(this.transactions, found.account_id, exportId))) return;
    try {
      const plan = await planExport(this.db, found.account_id, found.filters);
      await exportsStore.appendChunk(this.db, found.account_id, exportId, 0, Buffer.from(headerLine(plan)), 0);
      await this.copyRecords(found.account_id, exportId, exportCopySql(this.db, plan));
      await exportsStore.finish(this.db, found.account_id, exportId, { status: 'completed' });
    } catch (error) {
      await exportsStore.finish(this.db, found.account_id, exportId, {
        status: 'failed',
        error: 'The export stopped on an unexpected error; it has been logged.',
      });
      throw error;
    } finally {
      await exportsStore.dropOlderThanNewest(this.db, found.account_id, this.limits.keptPerAccount);
    }
  }

  private async copyRecords(accountId: string, exportId: string, copySql: string): Promise<void> {
    const client = await this.pool.connect();
    const copied = client.query(copyTo(copySql));
    const writer = new CopyCsvWriter();
    let seq = 1;
    // One buffer for every chunk: pg has copied a chunk out by the time it is stored.
    let chunk = Buffer.allocUnsafe(2 * CHUNK_BYTES);
    let size = 0;
    let records = 0;
    const append = (bytes: Uint8Array) => {
      if (size + bytes.length > chunk.length) {
        const larger = Buffer.allocUnsafe(2 * (size + bytes.length));
        chunk.copy(larger, 0, 0, size);
        chunk = larger;
      }
      chunk.set(bytes, size);
      size += bytes.length;
    };
    const store = async () => {
      await exportsStore.appendChunk(this.db, accountId, exportId, seq++, chunk.subarray(0, size), records);
      size = 0;
      records = 0;
    };
    try {
      for await (const input of copied as AsyncIterable<Buffer>) {
        const out = writer.write(input);
        // A chunk ends at the first record end that takes it to CHUNK_BYTES.
        let start = 0;
        for (const end of writer.recordEnds) {
          records++;
          if (size + end - start < CHUNK_BYTES) continue;
          append(out.subarray(start, end));
          start = end;
          await store();
        }
        if (start < out.length) append(out.subarray(start));
      }
      if (size > 0) await store();
      client.release();
    } catch (error) {
      copied.destroy();
      // The connection may be inside the COPY: it is not given back to the pool.
      client.release(true);
      throw error;
    }
  }
}

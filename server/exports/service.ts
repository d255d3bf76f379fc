import type { components } from '../../generated/openapi.d.ts';
import type { Db } from '../db/kysely.ts';
import type { Queue } from '../jobs/queue.ts';
import { notFound, Problem } from '../http/problem.ts';
import { exportLines, headerLine, planExport, type ExportCursor } from './csv-writer.ts';
import { exportsStore, type ExportListed } from './store.ts';

type ContactExportJson = components['schemas']['ContactExport'];
type ContactExportFilters = components['schemas']['ContactExportFilters'];

export const EXPORT_JOB = 'contacts.export';
/** How long an export's CSV is kept. */
export const EXPORT_KEPT_MS = 24 * 3600_000;

/**
 * Contacts per statement of the job: their lines (about 200 bytes each with ten attributes) are
 * held by PostgreSQL once, within its default 4 MB work_mem, while they are cut into chunks.
 */
const PAGE_ROWS = 5000;
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
  private readonly queue: Queue;

  constructor(db: Db, queue: Queue) {
    this.db = db;
    this.queue = queue;
  }

  async create(accountId: string, filters: ContactExportFilters): Promise<ContactExportJson> {
    const stored: Record<string, string> = {};
    for (const [key, value] of Object.entries(filters)) if (typeof value === 'string') stored[key] = value;
    const created = await exportsStore.insert(this.db, {
      account_id: accountId,
      filters: stored,
      expires_at: new Date(Date.now() + EXPORT_KEPT_MS),
    });
    await this.queue.enqueue(EXPORT_JOB, { exportId: created.id });
    return exportJson(created);
  }

  async get(accountId: string, id: string): Promise<ContactExportJson> {
    const found = await exportsStore.byId(this.db, accountId, id);
    if (!found) throw notFound('export');
    return exportJson(found);
  }

  /** The CSV's chunks, read one at a time; checks the export first, so errors come before any byte. */
  async download(accountId: string, id: string): Promise<AsyncIterable<string>> {
    const found = await exportsStore.byId(this.db, accountId, id);
    if (!found) throw notFound('export');
    if (found.status !== 'completed') {
      throw new Problem(409, 'export_not_ready', `The export is ${found.status}.`, { extra: { current_status: found.status } });
    }
    const db = this.db;
    return (async function* () {
      for (let seq = 0; ; seq++) {
        const data = await exportsStore.chunk(db, id, seq);
        if (!data) return;
        yield data.toString('utf8');
      }
    })();
  }

  /**
   * The job: PostgreSQL writes the CSV's lines and stores them in chunks, a page of contacts per
   * statement (memory stays flat on both sides, and progress shows), then the export is marked
   * completed (or failed).
   */
  async run(exportId: string): Promise<void> {
    const found = await exportsStore.byId(this.db, null, exportId);
    if (!found || !(await exportsStore.start(this.db, exportId))) return;
    try {
      const plan = await planExport(this.db, found.account_id, found.filters);
      await exportsStore.appendChunk(this.db, exportId, 0, Buffer.from(headerLine(plan)), 0);
      let seq = 1;
      let after: ExportCursor | null = null;
      for (;;) {
        const page = await exportsStore.appendLines(this.db, exportId, seq, exportLines(this.db, plan, after, PAGE_ROWS), CHUNK_BYTES);
        if (!page) break;
        seq += page.chunks;
        if (page.rows < PAGE_ROWS) break;
        after = page.last;
      }
      await exportsStore.finish(this.db, exportId, { status: 'completed' });
    } catch (error) {
      await exportsStore.finish(this.db, exportId, { status: 'failed', error: 'The export stopped on an unexpected error; it has been logged.' });
      throw error;
    }
  }
}

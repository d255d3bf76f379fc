import type { Pool, PoolClient } from '../db/pool.ts';
import type { Cursor } from '../http/pagination.ts';
import type { RowError } from './errors.ts';
import type { BatchCounts, ImportMode } from './writer.ts';

export interface ImportRecord {
  id: string;
  account_id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  mode: ImportMode;
  tags: string[];
  mapping: Record<string, string>;
  total_rows: number;
  processed_rows: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  failure_code: string | null;
  failure_detail: string | null;
  failure_row: number | null;
  created_at: Date;
  finished_at: Date | null;
}

type Db = Pool | PoolClient;

/** Imports, their uploaded chunks and their row errors, in SQL. */
export const importsSql = {
  async insert(db: Db, r: { id: string; accountId: string; status: 'queued' | 'running'; mode: ImportMode; tags: string[]; mapping: Record<string, string> }) {
    await db.query(
      'insert into contact_imports (id, account_id, status, mode, tags, mapping, started_at) values ($1, $2, $3, $4, $5, $6, case when $3 = \'running\' then now() end)',
      [r.id, r.accountId, r.status, r.mode, r.tags, JSON.stringify(r.mapping)],
    );
  },

  /** One import; `accountId` null only for the worker, which has no caller. */
  async get(db: Db, accountId: string | null, id: string): Promise<ImportRecord | null> {
    const { rows } = await db.query('select * from contact_imports where id = $1 and ($2::text is null or account_id = $2)', [id, accountId]);
    return rows[0] ?? null;
  },

  async page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<ImportRecord[]> {
    const { rows } = await db.query(
      `select * from contact_imports where account_id = $1 and ($2::timestamptz is null or (created_at, id) > ($2, $3))
       order by created_at, id limit $4`,
      [accountId, after?.at ?? null, after?.id ?? null, limit + 1],
    );
    return rows;
  },

  async activeCount(db: Db, accountId: string): Promise<number> {
    const { rows } = await db.query("select count(*)::int as n from contact_imports where account_id = $1 and status in ('queued', 'running')", [accountId]);
    return rows[0].n;
  },

  async addChunk(db: Db, id: string, seq: number, data: Buffer): Promise<void> {
    await db.query('insert into contact_import_chunks (import_id, seq, data) values ($1, $2, $3)', [id, seq, data]);
  },

  /** What is known once the upload has ended: its options, size and line count. */
  async describeUpload(db: Db, id: string, u: { mode: ImportMode; tags: string[]; mapping: Record<string, string>; bytes: number; estimatedRows: number }): Promise<void> {
    await db.query('update contact_imports set mode = $2, tags = $3, mapping = $4, size_bytes = $5, total_rows = $6 where id = $1', [
      id,
      u.mode,
      u.tags,
      JSON.stringify(u.mapping),
      u.bytes,
      u.estimatedRows,
    ]);
  },

  /** The uploaded file, one chunk at a time. */
  async *chunks(db: Db, id: string): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const { rows } = await db.query('select data from contact_import_chunks where import_id = $1 and seq = $2', [id, seq]);
      if (!rows.length) return;
      yield rows[0].data;
    }
  },

  /** Marks the import running; returns each writer's checkpoint (`writers` of them for a fresh start). */
  async markRunning(db: Db, id: string, writers: number): Promise<number[]> {
    const { rows } = await db.query(
      `update contact_imports set status = 'running', started_at = coalesce(started_at, now()),
         checkpoints = case when cardinality(checkpoints) = 0 then array_fill(processed_rows, array[$2::int]) else checkpoints end
       where id = $1 returning checkpoints`,
      [id, writers],
    );
    return rows[0].checkpoints;
  },

  /**
   * Adds a committed batch's counts and moves its writer's checkpoint, in the batch's
   * transaction. `processed_rows` is the lowest checkpoint: every row up to it is written.
   */
  async advance(db: Db, id: string, writer: number, checkpoint: number, counts: BatchCounts): Promise<void> {
    await db.query(
      `update contact_imports set checkpoints[$2] = $3,
         processed_rows = least($3, (select min(c) from unnest(checkpoints) with ordinality as t(c, i) where i <> $2)),
         total_rows = greatest(total_rows, $3),
         created = created + $4, updated = updated + $5, skipped = skipped + $6, failed = failed + $7
       where id = $1`,
      [id, writer + 1, checkpoint, counts.created, counts.updated, counts.skipped, counts.failed],
    );
  },

  async finish(db: Db, id: string, outcome: { status: 'completed' } | { status: 'failed'; code: string; detail: string; row: number | null }): Promise<ImportRecord> {
    const failure = outcome.status === 'failed' ? outcome : { code: null, detail: null, row: null };
    const { rows } = await db.query(
      `update contact_imports set status = $2, failure_code = $3, failure_detail = $4, failure_row = $5, finished_at = now(),
         total_rows = case when $2 = 'completed' then processed_rows else total_rows end
       where id = $1 returning *`,
      [id, outcome.status, failure.code, failure.detail, failure.row],
    );
    await db.query('delete from contact_import_chunks where import_id = $1', [id]);
    return rows[0];
  },

  async firstErrors(db: Db, id: string, limit: number): Promise<RowError[]> {
    const { rows } = await db.query('select row, email, code, detail from contact_import_errors where import_id = $1 order by row limit $2', [id, limit]);
    return rows;
  },

  /** Every error, streamed in row order by keyset. */
  async *allErrors(db: Db, id: string): AsyncGenerator<RowError> {
    let after = 0;
    for (;;) {
      const { rows } = await db.query('select row, email, code, detail from contact_import_errors where import_id = $1 and row > $2 order by row limit 5000', [id, after]);
      yield* rows;
      if (rows.length < 5000) return;
      after = rows.at(-1).row;
    }
  },
};

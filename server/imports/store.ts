import { sql, type Selectable } from 'kysely';
import type { Db, Database } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { ImportMode } from './entities.ts';
import type { RowError } from './errors.ts';

/** An import as stored. */
export type ImportRecord = Selectable<Database['contact_imports']>;

export interface BatchCounts {
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

export type ImportOutcomeRecord = { status: 'completed' } | { status: 'failed'; code: string; detail: string; row: number | null };

const ERRORS_PER_READ = 5000;

/**
 * Imports, their uploaded chunks and their row errors: the only code that writes these tables.
 * Each operation runs on the `db` it is given: the ORM's connection or transaction on the main
 * thread, the import thread's own connections there.
 */
export const importStore = {
  async create(
    db: Db,
    r: { id: string; accountId: string; status: 'queued' | 'running'; mode: ImportMode; tags: string[]; mapping: Record<string, string>; listIds: string[] },
  ): Promise<void> {
    await db
      .insertInto('contact_imports')
      .values({
        id: r.id,
        account_id: r.accountId,
        status: r.status,
        mode: r.mode,
        tags: r.tags,
        mapping: r.mapping,
        list_ids: r.listIds,
        started_at: r.status === 'running' ? sql<Date>`now()` : null,
      })
      .execute();
  },

  /** One import; `accountId` null only for the worker, which has no caller. */
  async get(db: Db, accountId: string | null, id: string): Promise<ImportRecord | null> {
    let query = db.selectFrom('contact_imports').selectAll().where('id', '=', id);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    return (await query.executeTakeFirst()) ?? null;
  },

  /** `limit + 1` imports after the cursor, oldest first: one more tells whether there is a next page. */
  async page(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<ImportRecord[]> {
    const query = db.selectFrom('contact_imports').selectAll().where('account_id', '=', accountId);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  async activeCount(db: Db, accountId: string): Promise<number> {
    const { n } = await db
      .selectFrom('contact_imports')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
      .where('account_id', '=', accountId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirstOrThrow();
    return n;
  },

  /** Imports running now, of every account. */
  async runningCount(db: Db): Promise<number> {
    const { n } = await db
      .selectFrom('contact_imports')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
      .where('status', '=', 'running')
      .executeTakeFirstOrThrow();
    return n;
  },

  /** Imports queued or running: after a restart, each is queued again. */
  async unfinished(db: Db): Promise<string[]> {
    const rows = await db.selectFrom('contact_imports').select('id').where('status', 'in', ['queued', 'running']).execute();
    return rows.map((r) => r.id);
  },

  async addChunk(db: Db, accountId: string, id: string, seq: number, data: Buffer): Promise<void> {
    await db.insertInto('contact_import_chunks').values({ account_id: accountId, import_id: id, seq, data }).execute();
  },

  /** What is known once the upload has ended: its options, size and line count. */
  async describeUpload(
    db: Db,
    accountId: string,
    id: string,
    u: { mode: ImportMode; tags: string[]; mapping: Record<string, string>; listIds: string[]; bytes: number; estimatedRows: number },
  ): Promise<void> {
    await db
      .updateTable('contact_imports')
      .set({ mode: u.mode, tags: u.tags, mapping: u.mapping, list_ids: u.listIds, size_bytes: String(u.bytes), total_rows: u.estimatedRows })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  },

  /** The uploaded file, one chunk at a time. */
  async *chunks(db: Db, accountId: string, id: string): AsyncGenerator<Buffer> {
    for (let seq = 0; ; seq++) {
      const chunk = await db
        .selectFrom('contact_import_chunks')
        .select('data')
        .where('account_id', '=', accountId)
        .where('import_id', '=', id)
        .where('seq', '=', seq)
        .executeTakeFirst();
      if (!chunk) return;
      yield Buffer.from(chunk.data.buffer, chunk.data.byteOffset, chunk.data.byteLength);
    }
  },

  /** Marks the import running; returns each writer's checkpoint (`writers` of them for a fresh start). */
  async markRunning(db: Db, accountId: string, id: string, writers: number): Promise<number[]> {
    const { checkpoints } = await db
      .updateTable('contact_imports')
      .set({
        status: 'running',
        // The time as a value: Citus refuses now() inside a COALESCE of a statement that changes rows.
        started_at: sql<Date>`coalesce(started_at, ${new Date()}::timestamptz)`,
        checkpoints: sql<number[]>`case when cardinality(checkpoints) = 0 then array_fill(processed_rows, array[${writers}::int]) else checkpoints end`,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning('checkpoints')
      .executeTakeFirstOrThrow();
    return checkpoints;
  },

  /**
   * Adds a committed batch's counts and moves its writer's checkpoint, in the batch's
   * transaction. `processed_rows` is the lowest checkpoint: every row up to it is written.
   * Plain SQL: the builder cannot assign one element of an array column.
   */
  async advance(db: Db, accountId: string, id: string, writer: number, checkpoint: number, counts: BatchCounts): Promise<void> {
    const element = writer + 1;
    await sql`
      update contact_imports set checkpoints[${element}::int] = ${checkpoint}::int,
        processed_rows = least(${checkpoint}::int, (select min(c) from unnest(checkpoints) with ordinality as t(c, i) where i <> ${element}::int)),
        total_rows = greatest(total_rows, ${checkpoint}::int),
        created = created + ${counts.created}::int, updated = updated + ${counts.updated}::int,
        skipped = skipped + ${counts.skipped}::int, failed = failed + ${counts.failed}::int
      where account_id = ${accountId} and id = ${id}`.execute(db);
  },

  /** Rows the import could not take; a row already recorded (a batch written again on resume) is kept. */
  async recordErrors(db: Db, accountId: string, id: string, errors: RowError[]): Promise<void> {
    if (!errors.length) return;
    // One statement whatever the batch size (a VALUES list would need five parameters a row).
    await db
      .insertInto('contact_import_errors')
      .columns(['account_id', 'import_id', 'row', 'email', 'code', 'detail'])
      .expression(
        sql`select ${accountId}, ${id}, * from unnest(${errors.map((e) => e.row)}::int[], ${errors.map((e) => e.email)}::text[], ${errors.map((e) => e.code)}::text[], ${errors.map((e) => e.detail)}::text[])`,
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  /** Ends the import and drops its upload; returns the import as it ended. */
  async finish(db: Db, accountId: string, id: string, outcome: ImportOutcomeRecord): Promise<ImportRecord> {
    const failure = outcome.status === 'failed' ? outcome : { code: null, detail: null, row: null };
    const record = await db
      .updateTable('contact_imports')
      .set({
        status: outcome.status,
        failure_code: failure.code,
        failure_detail: failure.detail,
        failure_row: failure.row,
        finished_at: sql<Date>`now()`,
        total_rows: outcome.status === 'completed' ? sql<number>`processed_rows` : sql<number>`total_rows`,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await db.deleteFrom('contact_import_chunks').where('account_id', '=', accountId).where('import_id', '=', id).execute();
    return record;
  },

  async firstErrors(db: Db, accountId: string, id: string, limit: number): Promise<RowError[]> {
    return db
      .selectFrom('contact_import_errors')
      .select(['row', 'email', 'code', 'detail'])
      .where('account_id', '=', accountId)
      .where('import_id', '=', id)
      .orderBy('row')
      .limit(limit)
      .execute();
  },

  /** Every error, streamed in row order by keyset. */
  async *allErrors(db: Db, accountId: string, id: string): AsyncGenerator<RowError> {
    let after = 0;
    for (;;) {
      const rows = await db
        .selectFrom('contact_import_errors')
        .select(['row', 'email', 'code', 'detail'])
        .where('account_id', '=', accountId)
        .where('import_id', '=', id)
        .where('row', '>', after)
        .orderBy('row')
        .limit(ERRORS_PER_READ)
        .execute();
      yield* rows;
      const last = rows.at(-1);
      if (!last || rows.length < ERRORS_PER_READ) return;
      after = last.row;
    }
  },
};

/** Erasure (GDPR): deletes the account's failed import rows for the address; answers how many. */
export async function deleteErrorRowsOf(db: Db, accountId: string, email: string): Promise<number> {
  const { rows } = await sql<{ row: number }>`
    delete from contact_import_errors e
    where e.account_id = ${accountId} and lower(e.email) = ${email.toLowerCase()}
    returning e.row`.execute(db);
  return rows.length;
}

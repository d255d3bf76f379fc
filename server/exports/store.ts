import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { Pool } from '../db/pool.ts';
import type { Transactions } from '../db/transactions.ts';
import type { ExportStatus } from './entities.ts';

/** An export's filters as stored: texts, and the ids of `contact_ids`. */
export type StoredFilters = Record<string, string | string[]>;

/** Every statement that writes `contact_exports` and `contact_export_chunks`. */

export interface ExportListed {
  id: string;
  account_id: string;
  status: ExportStatus;
  filters: StoredFilters;
  rows: number;
  bytes: number;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  expires_at: Date;
}

const COLUMNS = ['id', 'account_id', 'status', 'filters', 'rows', 'bytes', 'error', 'created_at', 'started_at', 'completed_at', 'expires_at'] as const;

export const exportsStore = {
  async insert(db: Db, row: { account_id: string; filters: StoredFilters; expires_at: Date }): Promise<ExportListed> {
    const created = await db
      .insertInto('contact_exports')
      .values({ ...row, id: sql<string>`sendline_id('exp')`, status: 'queued' })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
    return { ...created, bytes: Number(created.bytes) };
  },

  /**
   * Inserts the export unless the account has `maxActive` queued or running, answering null then.
   * Requests of one account take turns on an advisory lock, so parallel ones cannot all see room.
   */
  async insertWithin(
    transactions: Transactions,
    maxActive: number,
    row: { account_id: string; filters: StoredFilters; expires_at: Date },
  ): Promise<ExportListed | null> {
    return transactions.run(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${`contact_exports:${row.account_id}`}))`.execute(tx);
      const { active } = await tx
        .selectFrom('contact_exports')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('active'))
        .where('account_id', '=', row.account_id)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirstOrThrow();
      return active >= maxActive ? null : exportsStore.insert(tx, row);
    });
  },

  /** Any account's export when `accountId` is null (the job). */
  async byId(db: Db, accountId: string | null, id: string): Promise<ExportListed | null> {
    let query = db.selectFrom('contact_exports').select(COLUMNS).where('id', '=', id);
    if (accountId !== null) query = query.where('account_id', '=', accountId);
    const row = await query.executeTakeFirst();
    return row ? { ...row, bytes: Number(row.bytes) } : null;
  },

  /** Marks a queued (or interrupted) export running and drops what an earlier run wrote; false when it is not to run. */
  async start(transactions: Transactions, accountId: string, id: string): Promise<boolean> {
    return transactions.run(async (tx) => {
      const row = await tx
        .updateTable('contact_exports')
        .set({ status: 'running', started_at: sql<Date>`now()`, rows: 0, bytes: 0 })
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .where('status', 'in', ['queued', 'running'])
        .returning('id')
        .executeTakeFirst();
      if (!row) return false;
      await tx.deleteFrom('contact_export_chunks').where('account_id', '=', accountId).where('export_id', '=', id).execute();
      return true;
    });
  },

  /** One chunk of the CSV and the progress it brings, in one statement. */
  async appendChunk(db: Db, accountId: string, id: string, seq: number, data: Buffer, rows: number): Promise<void> {
    await sql`with chunk as (insert into contact_export_chunks (account_id, export_id, seq, data) values (${accountId}, ${id}, ${seq}, ${data}))
      update contact_exports set rows = rows + ${rows}, bytes = bytes + ${data.length} where account_id = ${accountId} and id = ${id}`.execute(db);
  },

  async finish(db: Db, accountId: string, id: string, outcome: { status: 'completed' } | { status: 'failed'; error: string }): Promise<void> {
    await db
      .updateTable('contact_exports')
      .set({ status: outcome.status, error: outcome.status === 'failed' ? outcome.error : null, completed_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  },

  /**
   * One stored chunk, read in PostgreSQL's binary format: the bytes arrive as they are stored
   * and pg hands over one copy of them, with no hex text to decode and collect.
   */
  async chunk(pool: Pool, accountId: string, id: string, seq: number): Promise<Buffer | null> {
    const result = await pool.query<{ data: Buffer }>({
      text: 'select data from contact_export_chunks where account_id = $1 and export_id = $2 and seq = $3',
      values: [accountId, id, seq],
      binary: true,
    });
    return result.rows[0]?.data ?? null;
  },

  /** Exports whose job never finished (a restart queues them again). */
  async unfinished(db: Db): Promise<string[]> {
    const rows = await db.selectFrom('contact_exports').select('id').where('status', 'in', ['queued', 'running']).execute();
    return rows.map((r) => r.id);
  },

  /** Drops the account's finished exports, with their CSV, past the newest `kept`. */
  async dropOlderThanNewest(db: Db, accountId: string, kept: number): Promise<void> {
    await db
      .deleteFrom('contact_exports')
      .where('account_id', '=', accountId)
      .where('status', 'in', ['completed', 'failed'])
      .where(
        'id',
        'not in',
        db
          .selectFrom('contact_exports')
          .select('id')
          .where('account_id', '=', accountId)
          .where('status', 'in', ['completed', 'failed'])
          .orderBy('completed_at', 'desc')
          .orderBy('id', 'desc')
          .limit(kept),
      )
      .execute();
  },

  /** Drops expired exports with their CSV. */
  async prune(db: Db): Promise<void> {
    await db
      .deleteFrom('contact_exports')
      .where('expires_at', '<', sql<Date>`now()`)
      .execute();
  },

  /** Erasure: drops the account's exports whose CSV holds the address. Answers how many. */
  async deleteHolding(db: Db, accountId: string, email: string): Promise<number> {
    const rows = await sql<{ id: string }>`
      delete from contact_exports e where e.account_id = ${accountId}
        and exists (select 1 from contact_export_chunks c where c.account_id = e.account_id and c.export_id = e.id and position(lower(${email}) in lower(convert_from(c.data, 'UTF8'))) > 0)
      returning e.id`.execute(db);
    return rows.rows.length;
  },
};

import { sql } from 'kysely';
import type { Database, Db } from './kysely.ts';

/**
 * Rows a bulk write must change before it analyses its tables. ANALYZE reads a sample of up to
 * 30,000 rows whatever the write's size, which costs more than a write of a few hundred rows
 * and would be paid by every small import or tag change. Below this, a plan misled by stale
 * statistics sorts at most this many rows of the account; above it, an account that has just
 * grown from nothing would otherwise be planned as empty until autovacuum analyses the table.
 */
export const ANALYZE_AFTER_ROWS = 1_000;

/**
 * How long ANALYZE waits for the table's lock, which autovacuum or another analysis may hold:
 * then statistics are being made anyway. Shorter than PostgreSQL's `deadlock_timeout` (1 s), after
 * which a waiting ANALYZE would cancel autovacuum's work on the table.
 */
const LOCK_TIMEOUT = '100ms';

/** Per table, the analysis running in this process, and the one queued after it. */
const running = new Map<keyof Database, Promise<void>>();
const queued = new Map<keyof Database, Promise<void>>();

/**
 * Refreshes the planner's statistics of the tables a bulk write changed, once it has committed,
 * when it changed at least ANALYZE_AFTER_ROWS rows. ANALYZE takes no lock that blocks reads or
 * writes. Writes that end while an analysis of the table runs share the one after it (the
 * running one may have sampled before they committed). A failure is left to autovacuum: the
 * write stands either way.
 */
export async function analyzeAfterBulkWrite(db: Db, tables: readonly (keyof Database)[], changedRows: number): Promise<void> {
  if (changedRows < ANALYZE_AFTER_ROWS) return;
  await Promise.all(tables.map((table) => analyze(db, table)));
}

function analyze(db: Db, table: keyof Database): Promise<void> {
  const waiting = queued.get(table);
  if (waiting) return waiting;
  const next = (running.get(table) ?? Promise.resolve()).then(() => {
    queued.delete(table);
    const analysis = db
      .transaction()
      .execute(async (trx) => {
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
        await sql`analyze ${sql.table(table)}`.execute(trx);
      })
      .catch(() => {})
      .finally(() => {
        if (running.get(table) === analysis) running.delete(table);
      });
    running.set(table, analysis);
    return analysis;
  });
  queued.set(table, next);
  return next;
}

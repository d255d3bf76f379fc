import { sql } from 'kysely';
import type { Logger } from '../logger.ts';
import type { Database, Db } from './kysely.ts';

/**
 * Rows a bulk write must change before it analyses its tables. ANALYZE reads a sample of up to
 * 30,000 rows whatever the write's size, which costs more than a write of a few hundred rows
 * and would be paid by every small import or tag change. Below this, a plan misled by stale
 * statistics sorts at most this many rows of the account; above it, an account that has just
 * grown from nothing would otherwise be planned as empty until autovacuum analyses the table.
 */
const ANALYZE_AFTER_ROWS = 1_000;

/**
 * The share of a table's rows (as its statistics last counted them) a write must change, when
 * that is more than ANALYZE_AFTER_ROWS: autovacuum's own default. Statistics of a big table stay
 * close enough after a smaller change, and a chunked sync (a bulk call per 1,000 contacts) into
 * it does not analyse after each call.
 */
const ANALYZE_AFTER_SHARE = 0.1;

/**
 * How long ANALYZE waits for the table's lock, which autovacuum or another analysis may hold:
 * then statistics are being made anyway. Shorter than PostgreSQL's `deadlock_timeout` (1 s), after
 * which a waiting ANALYZE would cancel autovacuum's work on the table.
 */
const LOCK_TIMEOUT = '100ms';

/** PostgreSQL's `lock_not_available`: the table's lock was held past LOCK_TIMEOUT. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Per table, the analysis running in this process, and the one queued after it. */
const running = new Map<keyof Database, Promise<void>>();
const queued = new Map<keyof Database, Promise<void>>();
/** Analyses started by `analyzeSoon` and not finished. */
const started = new Set<Promise<void>>();

let log: Logger | null = null;

/** Where failed analyses are reported (the server's logger, set at start). */
export function logAnalysesTo(logger: Logger): void {
  log = logger;
}

/**
 * Refreshes the planner's statistics of the tables a bulk write changed, once it has committed,
 * when it changed at least ANALYZE_AFTER_ROWS rows and ANALYZE_AFTER_SHARE of a table. ANALYZE
 * takes no lock that blocks reads or writes. Writes that end while an analysis of the table runs
 * share the one after it (the running one may have sampled before they committed). Never
 * rejects: a failure is logged and left to autovacuum, the write stands either way.
 */
export async function analyzeAfterBulkWrite(db: Db, tables: readonly (keyof Database)[], changedRows: number): Promise<void> {
  if (changedRows < ANALYZE_AFTER_ROWS) return;
  await Promise.all(
    tables.map(async (table) => {
      try {
        if (await changedEnough(db, table, changedRows)) await analyze(db, table);
      } catch (err) {
        log?.warn({ err, table }, 'could not analyse a table after a bulk write; autovacuum will');
      }
    }),
  );
}

/**
 * `analyzeAfterBulkWrite`, started and not awaited: for requests, which answer without waiting
 * for it. `analysesSettled` waits for those started (a stopping server, before it closes its pool).
 */
export function analyzeSoon(db: Db, tables: readonly (keyof Database)[], changedRows: number): void {
  if (changedRows < ANALYZE_AFTER_ROWS) return;
  const analysis = analyzeAfterBulkWrite(db, tables, changedRows).finally(() => started.delete(analysis));
  started.add(analysis);
}

/** Resolves once every analysis `analyzeSoon` started has finished. */
export async function analysesSettled(): Promise<void> {
  await Promise.all(started);
}

/** Whether `changedRows` is at least ANALYZE_AFTER_SHARE of the table (any number of rows, for one never analysed). */
async function changedEnough(db: Db, table: keyof Database, changedRows: number): Promise<boolean> {
  const { rows } = await sql<{ rows: number }>`select reltuples::float8 as rows from pg_class where oid = to_regclass(${table})`.execute(db);
  return changedRows >= (rows[0]?.rows ?? -1) * ANALYZE_AFTER_SHARE;
}

function analyze(db: Db, table: keyof Database): Promise<void> {
  const waiting = queued.get(table);
  if (waiting) return waiting;
  const next = (running.get(table) ?? Promise.resolve()).then(() => {
    queued.delete(table);
    // Kysely's own transaction on the caller's pool-wide handle, not Transactions.run: its callers,
    // in every feature, hand a Db, and `set local` and ANALYZE need no raw connection.
    const analysis = db
      .transaction()
      .execute(async (trx) => {
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
        await sql`analyze ${sql.table(table)}`.execute(trx);
      })
      .catch((err: unknown) => {
        // Another analysis or autovacuum holds the table: its statistics are being made.
        if ((err as { code?: string }).code === LOCK_NOT_AVAILABLE) log?.debug({ table }, 'skipped analysing a table that is being vacuumed or analysed');
        else log?.warn({ err, table }, 'could not analyse a table after a bulk write; autovacuum will');
      })
      .finally(() => {
        if (running.get(table) === analysis) running.delete(table);
      });
    running.set(table, analysis);
    return analysis;
  });
  queued.set(table, next);
  return next;
}

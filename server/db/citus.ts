import type pg from 'pg';
import { ConfigError } from '../config-error.ts';

/**
 * Sendline on a Citus cluster: every account's rows on one shard, so each request's queries and
 * transactions stay on one worker. Each table of the schema is one of three kinds, by decision:
 * - distributed by `account_id`, all co-located: every table not named below;
 * - reference (a copy on every node): `REFERENCE_TABLES`;
 * - on the coordinator alone: `COORDINATOR_TABLES`, and the job queue's table, which Agenda
 *   makes as it starts.
 * Migrations make plain tables; `distribute` turns them into these (at the first start on a
 * cluster, and after a migration that adds a table), and a server refuses to start on a
 * coordinator whose tables are not all distributed yet (`undistributedTables`).
 */

/**
 * Looked up without their account (a log-in by address, a key by its hash, a session by its id,
 * an account by its public id), small, and referenced by tables of every account: `accounts`
 * included, since a reference table may only reference another.
 */
export const REFERENCE_TABLES: readonly string[] = ['accounts', 'users', 'api_keys', 'sessions'];

/** The migrations' record and the counters every account shares (rate limits, relay slots). */
export const COORDINATOR_TABLES: readonly string[] = ['mikro_orm_migrations', 'rate_limit_counters', 'relay_send_slots'];

/** The job queue's tables (server/jobs/queue.ts), on the coordinator too: made by Agenda as a server starts, outside the migrations. */
export const QUEUE_TABLES: readonly string[] = ['agenda_jobs', 'agenda_logs'];

/** The table the distributed ones are co-located with. */
const ANCHOR = 'contacts';

/** What the command that distributes the tables is called, for the message that asks for it. */
const DISTRIBUTE_COMMAND = 'sendline distribute';

type Query = Pick<pg.ClientBase, 'query'>;

/** Whether the database is a Citus coordinator (the `citus` extension is installed). */
async function isCitus(db: Query): Promise<boolean> {
  const { rows } = await db.query("select 1 from pg_extension where extname = 'citus'");
  return rows.length > 0;
}

/** A table of the schema, what it should be, and what it is now. */
interface TablePlace {
  table: string;
  wanted: 'distributed' | 'reference';
  /** `h` hash-distributed, `n` reference or Citus-local (told apart by `replicated`), null: a plain table. */
  method: string | null;
  replicated: boolean;
}

async function places(db: Query): Promise<TablePlace[]> {
  const { rows } = await db.query<{ table: string; method: string | null; replicated: boolean }>(
    `select c.relname as table, p.partmethod as method, coalesce(p.repmodel = 't', false) as replicated
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     left join pg_dist_partition p on p.logicalrelid = c.oid
     where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition and not (c.relname = any($1::text[]))
     order by c.relname`,
    [[...COORDINATOR_TABLES, ...QUEUE_TABLES]],
  );
  return rows.map((row) => ({ ...row, wanted: REFERENCE_TABLES.includes(row.table) ? 'reference' : 'distributed' }));
}

const isInPlace = (p: TablePlace) => (p.wanted === 'reference' ? p.method === 'n' && p.replicated : p.method === 'h');

/** The tables not yet what they should be, on a Citus coordinator (none elsewhere). */
async function undistributedTables(db: Query): Promise<string[]> {
  if (!(await isCitus(db))) return [];
  return (await places(db)).filter((p) => !isInPlace(p)).map((p) => p.table);
}

/** Refuses a Citus coordinator with tables not yet what they should be, naming the command that makes them so. */
export async function requireDistributed(db: Query): Promise<void> {
  const tables = await undistributedTables(db);
  if (!tables.length) return;
  const named = tables.length > 5 ? `${tables.slice(0, 5).join(', ')} and ${tables.length - 5} more` : tables.join(', ');
  throw new ConfigError(
    `DATABASE_URL is a Citus coordinator whose tables are not distributed yet (${named}): run \`${DISTRIBUTE_COMMAND}\` with the same DATABASE_URL, then start again.`,
  );
}

/**
 * Makes every table what it should be, in one transaction: the foreign keys that touch a table
 * being changed are dropped and made again around it (Citus checks them against the tables'
 * kinds), reference tables first, then the distributed ones, each co-located with `ANCHOR`, their
 * rows moved onto the workers' shards. Answers the tables it changed.
 */
export async function distribute(db: Query): Promise<string[]> {
  if (!(await isCitus(db))) throw new ConfigError('DATABASE_URL is not a Citus coordinator: the citus extension is not installed there.');
  const pending = (await places(db)).filter((p) => !isInPlace(p));
  if (!pending.length) return [];
  const names = pending.map((p) => p.table);
  await db.query('begin');
  try {
    // One connection per worker: Citus refuses to change a reference table in a transaction
    // that has used several connections to a worker.
    await db.query("set local citus.multi_shard_modify_mode to 'sequential'");
    const { rows: keys } = await db.query<{ table: string; name: string; definition: string }>(
      `select k.conrelid::regclass::text as table, k.conname as name, pg_get_constraintdef(k.oid) as definition
       from pg_constraint k
       where k.contype = 'f' and k.connamespace = 'public'::regnamespace
         and (k.conrelid::regclass::text = any($1::text[]) or k.confrelid::regclass::text = any($1::text[]))
       order by 1, 2`,
      [names],
    );
    for (const key of keys) await db.query(`alter table ${ident(key.table)} drop constraint ${ident(key.name)}`);
    for (const p of pending.filter((p) => p.wanted === 'reference')) {
      await db.query('select create_reference_table($1)', [p.table]);
    }
    // The anchor first, when it is among them: the others are placed beside it.
    const distributed = pending.filter((p) => p.wanted === 'distributed').sort((a, b) => Number(b.table === ANCHOR) - Number(a.table === ANCHOR));
    for (const p of distributed) {
      await db.query("select create_distributed_table($1, 'account_id', colocate_with => $2)", [p.table, p.table === ANCHOR ? 'none' : ANCHOR]);
    }
    for (const key of keys) await db.query(`alter table ${ident(key.table)} add constraint ${ident(key.name)} ${key.definition}`);
    await db.query('commit');
  } catch (error) {
    await db.query('rollback');
    throw error;
  }
  // Citus copied their rows onto the shards; the coordinator's copies are no longer read.
  for (const table of names) await db.query('select truncate_local_data_after_distributing_table($1)', [table]);
  return names;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

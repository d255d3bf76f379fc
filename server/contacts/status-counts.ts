import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { ContactStatus } from './rules.ts';

/**
 * The contacts by account and status (`contact_status_counts`), kept by the statements that
 * write contacts, each in itself: it returns per row it inserted, deleted or changed the
 * account, the status before (null: inserted) and after (null: deleted), and a CTE of
 * `countingChanges` adds them up. Triggers kept them before; under Citus a trigger runs on the
 * shard, where a statement trigger's rows cannot be read by the counters' insert.
 *
 * The counts are split into shards chosen by the writing connection (`pg_backend_pid() % 16`),
 * so that concurrent writers do not queue on one row; readers add the shards up. A shard may go
 * negative (a contact counted in one shard, deleted through another): only sums mean anything.
 */

/** A row a statement wrote, as `countingChanges` reads it. */
export interface StatusChange {
  account_id: string;
  before: ContactStatus | null;
  after: ContactStatus | null;
}

/** The counters' upsert for `changes` (a query answering `StatusChange` rows), as a data-modifying CTE. */
export function countingChanges(changes: RawBuilder<StatusChange>): RawBuilder<unknown> {
  return sql`insert into contact_status_counts as s (account_id, status, shard, count)
    select c.account_id, x.status, pg_backend_pid() % 16, sum(x.delta)
    from (${changes}) c, lateral (values (c.after, 1), (c.before, -1)) x(status, delta)
    where x.status is not null
    group by 1, 2 having sum(x.delta) <> 0 order by 1, 2
    on conflict (account_id, status, shard) do update set count = s.count + excluded.count`;
}

/** One contact's status changed from `before` to `after` (a write through the ORM's unit of work). */
export async function countStatusChange(db: Db, accountId: string, before: ContactStatus, after: ContactStatus): Promise<void> {
  if (before === after) return;
  await countingChanges(sql<StatusChange>`select ${accountId}::text as account_id, ${before}::text as before, ${after}::text as after`).execute(db);
}

/** The contact's stored status, its row locked until the transaction ends: what a change through the ORM counts from. */
export async function lockedStatus(db: Db, accountId: string, contactId: string): Promise<ContactStatus | null> {
  const row = await db.selectFrom('contacts').select('status').where('account_id', '=', accountId).where('id', '=', contactId).forUpdate().executeTakeFirst();
  return row?.status ?? null;
}

import { sql, type RawBuilder } from 'kysely';
import type { EntityManager } from '../db/orm.ts';
import { sqlOf, type Db } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';
import { canCopy, copyLines, copyRows } from '../db/copy.ts';
import { MATCHES_SQL } from './patterns.ts';
import type { EventData, EventType, PendingEvent } from './types.ts';

// ---------------------------------------------------------------------------------------------
// Appending: the one way events are written.
// ---------------------------------------------------------------------------------------------

/**
 * Whether an event is born `dispatched`, as SQL over an account id and a type expression: it is
 * when no active webhook of the account subscribes to its type at the moment it is written (and
 * `webhook.test`, delivered to its one endpoint directly, always is). The webhook dispatcher reads
 * only undispatched events, so the tracking and sending volume of an account nobody watches costs
 * it nothing. Evaluated when the events are appended, in the caller's transaction: a webhook
 * committed after that receives only later events.
 */
function bornDispatched(accountId: string, type: string): string {
  return `(${type} = 'webhook.test' or not exists (select 1 from webhooks w where w.account_id = ${accountId} and w.active and ${MATCHES_SQL('w.events', type)}))`;
}

/** SQL with `$n` parameters, run through Kysely as it is. */
interface Statement {
  sql: string;
  parameters: unknown[];
}

/** Each of `types` with its `dispatched` at birth, for one account: the rule evaluated once per type, not per event. */
const DISPATCHED_BY_TYPE = `select t.type, ${bornDispatched('$1', 't.type')} as dispatched from unnest($2::text[]) as t(type)`;

function dispatchedByType(accountId: string, events: PendingEvent[]): Statement {
  return { sql: DISPATCHED_BY_TYPE, parameters: [accountId, [...new Set(events.map((e) => e.type))]] };
}

/** One statement for a whole batch; the payloads travel as one JSON array (cheaper than a json[] literal). */
function insertBatch(accountId: string, ids: string[], events: PendingEvent[]): Statement {
  return {
    sql: `with born as (${DISPATCHED_BY_TYPE}), appended as (
      insert into events (id, account_id, type, data, dispatched)
      select e.id, $1, e.type, d.value, born.dispatched
      from unnest($3::text[], $4::text[]) with ordinality as e(id, type, n)
      join json_array_elements($5::json) with ordinality as d(value, n) on d.n = e.n
      join born on born.type = e.type
      returning seq, dispatched)
      select ${announcementJson(SUBSCRIBED)} as appended from appended`,
    parameters: [...dispatchedByType(accountId, events).parameters, ids, events.map((e) => e.type), JSON.stringify(events.map((e) => e.data))],
  };
}

type DispatchedRow = { type: string; dispatched: boolean };

// ---------------------------------------------------------------------------------------------
// Announcing: processes that wait for an account's events (its WebSocket clients' hub, the
// webhook dispatcher) LISTEN on `sendline_events` for `account:seq,seq,…`. The statement that
// appends them answers what the announcement needs; `announce` sends it as a statement of its
// own that reads no table, so that under Citus it runs on the coordinator, where they listen.
// ---------------------------------------------------------------------------------------------

/** Appended events of one account, as `announce` reads them. */
export interface Appended {
  seqs: string[];
  /** An event a webhook waits for, or a process holds WebSocket clients of the account. */
  listened: boolean;
}

/** SQL: `Appended` as JSON over the events in the FROM clause (`seq`, `dispatched`), `subscribed` telling whether a hub holds clients of the account. */
const announcementJson = (subscribed: string) =>
  `json_build_object('seqs', coalesce(array_agg(seq::text order by seq), '{}'), 'listened', coalesce(bool_or(not dispatched), false) or ${subscribed})`;
const SUBSCRIBED = 'exists (select 1 from event_subscribers s where s.account_id = $1)';

/** `Appended` for the CTE `appended` (an `appending` or `appendingEach` fragment), for the final select of its statement. */
export const appendedBy = (accountId: string): RawBuilder<Appended> =>
  sql<Appended>`(select ${sql.raw(announcementJson('s.subscribed'))} from appended, (select exists (select 1 from event_subscribers where account_id = ${accountId}) as subscribed) s group by s.subscribed)`;

/** What one announcement may carry: NOTIFY takes under 8,000 bytes (seqs made on a Citus worker have 16 digits). */
const ANNOUNCEMENT_BYTES = 7_000;

/** The statement announcing the appended events, or null when nobody listens. */
export function announcement(accountId: string, appended: Appended | null | undefined): RawBuilder<unknown> | null {
  if (!appended?.listened || !appended.seqs.length) return null;
  const payloads = [`${accountId}:${appended.seqs[0]}`];
  for (const seq of appended.seqs.slice(1)) {
    if (payloads[payloads.length - 1].length + seq.length >= ANNOUNCEMENT_BYTES) payloads.push(`${accountId}:${seq}`);
    else payloads[payloads.length - 1] += `,${seq}`;
  }
  return sql`select pg_notify('sendline_events', p) from unnest(${payloads}::text[]) p`;
}

/** Announces the appended events when someone listens: at the transaction's commit, or now outside one. */
export async function announce(db: Db, accountId: string, appended: Appended | null | undefined): Promise<void> {
  await announcement(accountId, appended)?.execute(db);
}

/**
 * `append` as a fragment, for a data-modifying CTE named `appended`: a writer whose change and
 * its few events go in one statement (one round trip, one implicit transaction). The events are
 * written only `when` holds (e.g. `exists (select 1 from changed)`); `dispatched` follows
 * `bornDispatched`, evaluated per event. The statement answers `appendedBy` too, and its caller
 * announces them (`announce`), as with `appendingEach`.
 */
export function appending(accountId: string, events: PendingEvent[], when: RawBuilder<boolean>): RawBuilder<unknown> {
  const ids = events.map(() => newId('evt'));
  if (!events.length) return sql`select null::bigint as seq, true as dispatched where false`;
  // A row of VALUES per event: for a few events, cheaper to plan and run than unnest().
  const rows = events.map((e, i) => sql`(${ids[i]}, ${e.type}, ${JSON.stringify(e.data)}::json)`);
  const insert = sql`insert into events (id, account_id, type, data, dispatched)
    select e.id, a.id, e.type, e.data, ${sql.raw(bornDispatched('a.id', 'e.type'))}
    from (select ${accountId}::text as id) a, (values ${sql.join(rows)}) as e(id, type, data)
    where ${when}
    returning seq, dispatched`;
  return insert;
}

/**
 * `appending` for events made in SQL, as a fragment for a data-modifying CTE: one event of
 * `type` per row of `source` (a query answering `data`), in the statement that makes the change
 * they tell of, however many rows it changes. Whether they are born dispatched is worked out once.
 */
export function appendingEach<T extends EventType>(accountId: string, type: T, source: RawBuilder<{ data: EventData<T> }>): RawBuilder<unknown> {
  return sql`insert into events (id, account_id, type, data, dispatched)
    select sendline_id('evt'), a.id, a.type, s.data, a.dispatched
    from (select x.id, x.type, ${sql.raw(bornDispatched('x.id', 'x.type'))} as dispatched
          from (select ${accountId}::text as id, ${type}::text as type) x offset 0) a,
         (${source}) s
    returning seq, dispatched`;
}

async function run<Row>(tx: Db, statement: Statement): Promise<Row[]> {
  const { CompiledQuery } = await import('kysely');
  return (await tx.executeQuery<Row>(CompiledQuery.raw(statement.sql, statement.parameters))).rows;
}

const isEntityManager = (tx: EntityManager | Db): tx is EntityManager => 'getKysely' in tx;

/**
 * From this many events, a transaction's handle (`Transactions.run`) writes them with COPY after reading the rule: for 25,000
 * opens PostgreSQL spends about a quarter less time than on the INSERT (530 against 690 ms here);
 * for 500 both take the same, and the INSERT is one round trip instead of two.
 */
const COPY_FROM = 1000;

/**
 * Appends events of one account, with payloads typed by their type, so that they exist exactly
 * when the change they describe does, and announces them (`announce`). They are written now, in
 * one statement (large batches on a handle bound to one connection: COPY, see `COPY_FROM`), on
 * a Kysely `Db` (`Transactions.run`'s handle, a Kysely transaction) or in the transaction of an
 * `EntityManager` (`em.transactional`), whose change is flushed before it commits. `dispatched`
 * follows the one rule of `bornDispatched`. Answers the events' ids.
 */
export async function append(tx: EntityManager | Db, accountId: string, events: PendingEvent[]): Promise<string[]> {
  if (isEntityManager(tx)) {
    if (!tx.isInTransaction()) throw new Error('events are appended through the ORM only inside a transaction');
    return append(sqlOf(tx), accountId, events);
  }
  const ids = events.map(() => newId('evt'));
  if (!events.length) return ids;
  let appended: Appended | undefined;
  if (events.length < COPY_FROM || !canCopy(tx)) {
    [{ appended }] = await run<{ appended: Appended }>(tx, insertBatch(accountId, ids, events));
  } else {
    const dispatched = new Map((await run<DispatchedRow>(tx, dispatchedByType(accountId, events))).map((row) => [row.type, row.dispatched]));
    const lines = copyRows(events.map((e, i) => [ids[i], accountId, e.type, JSON.stringify(e.data), dispatched.get(e.type) ?? false]));
    await copyLines(tx, 'events', 'id, account_id, type, data, dispatched', lines);
    [{ appended }] = await run<{ appended: Appended }>(tx, {
      sql: `select ${announcementJson(SUBSCRIBED)} as appended from events where account_id = $1 and id = any($2::text[])`,
      parameters: [accountId, ids],
    });
  }
  await announce(tx, accountId, appended);
  return ids;
}

import { sql, type Selectable } from 'kysely';
import type { Database, Db, Tx } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';
import type { PendingEvent } from './types.ts';
import { announce, appendedBy, type Appended } from './outbox.ts';

/** `events`, as its rows read. */
export type EventRecord = Selectable<Database['events']>;

/** The columns an envelope is made of (`eventEnvelope`). */
export type EnvelopeRecord = Pick<EventRecord, 'id' | 'type' | 'created_at' | 'account_id' | 'data'>;

const ENVELOPE = ['id', 'type', 'created_at', 'account_id', 'data'] as const;

// ---------------------------------------------------------------------------------------------
// Webhook dispatch: the outbox as the webhook worker reads and marks it.
// ---------------------------------------------------------------------------------------------

/** Events not yet fanned out to webhooks: the outbox's backlog (one walk of `events_undispatched`). */
export async function undispatchedCount(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from events where not dispatched`.execute(db);
  return rows[0].n;
}

/**
 * Locks up to `limit` events not yet fanned out to webhooks, oldest first; events another
 * dispatcher holds are skipped. Mark them with `markDispatched` in the same transaction. One
 * account's at a time (under Citus, one shard's), the accounts of the oldest in turn.
 */
export async function lockUndispatched(tx: Tx, limit: number): Promise<Pick<EventRecord, 'id' | 'account_id' | 'type'>[]> {
  // The partial index `events_undispatched` serves this order.
  const oldest = await tx
    .selectFrom('events')
    .select('account_id')
    .where('dispatched', '=', false)
    .orderBy(sql`seq`)
    .limit(limit)
    .execute();
  const locked: Pick<EventRecord, 'id' | 'account_id' | 'type'>[] = [];
  for (const accountId of new Set(oldest.map((row) => row.account_id))) {
    if (locked.length >= limit) break;
    locked.push(
      ...(await tx
        .selectFrom('events')
        .select(['id', 'account_id', 'type'])
        .where('account_id', '=', accountId)
        .where('dispatched', '=', false)
        .orderBy(sql`seq`)
        .limit(limit - locked.length)
        .forUpdate()
        .skipLocked()
        .execute()),
    );
  }
  return locked;
}

/** The events have been fanned out to the endpoints that match them. */
export async function markDispatched(tx: Tx, events: readonly { id: string; account_id: string }[]): Promise<void> {
  if (!events.length) return;
  await sql`update events e set dispatched = true
    from unnest(${events.map((e) => e.account_id)}::text[], ${events.map((e) => e.id)}::text[]) as d(account_id, id)
    where e.account_id = d.account_id and e.id = d.id`.execute(tx);
}

/**
 * Writes an event that bypasses the fan-out (born dispatched): one delivered to a single endpoint
 * by its caller, such as `webhook.test`.
 */
export async function appendDispatched(db: Db, accountId: string, event: PendingEvent): Promise<EnvelopeRecord> {
  const {
    rows: [{ appended, ...envelope }],
  } = await sql<EnvelopeRecord & { appended: Appended }>`
    with appended as (
      insert into events (id, account_id, type, data, created_at, dispatched)
      values (${newId('evt')}, ${accountId}, ${event.type}, ${JSON.stringify(event.data)}::json, now(), true)
      returning id, type, created_at, account_id, data, seq, dispatched
    )
    select id, type, created_at, account_id, data, ${appendedBy(accountId)} as appended from appended`.execute(db);
  await announce(db, accountId, appended);
  return envelope;
}

/** Events by id, as envelopes are made of; ids not found are left out. */
export function envelopesByIds(db: Db, ids: readonly string[]): Promise<EnvelopeRecord[]> {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('events')
    .select(ENVELOPE)
    .where('id', '=', sql<string>`any(${ids})`)
    .execute();
}

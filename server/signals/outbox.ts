import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';

/**
 * Signals: things that happened to a contact that may start a journey (it was created, tagged,
 * joined a list, did something). The module that makes the change writes its signals in the same
 * transaction, so none is lost and none exists without its change; a signal nobody has declared
 * an interest in is not written at all, so writers pay one index probe when no automation listens.
 * The automations' enroller takes them (and deletes them) in its own transactions.
 */

export type SignalKind = 'contact_created' | 'tag_added' | 'list_joined' | 'event';

export interface NewSignal {
  kind: SignalKind;
  contactId: string;
  /** The tag, list id or event name; '' when the kind has none. */
  key?: string;
  data?: Record<string, unknown> | null;
}

export interface TakenSignal {
  account_id: string;
  id: string;
  kind: SignalKind;
  contact_id: string;
  key: string;
  data: Record<string, unknown> | null;
  created_at: Date;
}

const interested = (accountId: RawBuilder<string> | string, kind: RawBuilder<string>, key: RawBuilder<string>) =>
  sql<boolean>`exists (select 1 from signal_interests i where i.account_id = ${accountId} and i.kind = ${kind} and i.key = ${key})`;

/**
 * For a data-modifying CTE: one signal of `kind` per row of `source` (a query answering
 * `contact_id` and `key`), written only when someone is interested in it.
 */
export function signalling(accountId: string, kind: SignalKind, source: RawBuilder<{ contact_id: string; key: string }>): RawBuilder<unknown> {
  return sql`insert into contact_signals (account_id, id, kind, contact_id, key)
    select ${accountId}, sendline_id('sig'), ${kind}, s.contact_id, s.key from (${source}) s
    where ${interested(accountId, sql`${kind}::text`, sql`s.key`)}`;
}

/** Writes signals of one account, those someone is interested in (events: always, for the journeys waiting for them). */
export async function signal(db: Db, accountId: string, signals: readonly NewSignal[]): Promise<string[]> {
  if (!signals.length) return [];
  const ids = signals.map(() => newId('sig'));
  await sql`insert into contact_signals (account_id, id, kind, contact_id, key, data)
    select ${accountId}, x.id, x.kind, x.contact_id, x.key, x.data
    from unnest(${ids}::text[], ${signals.map((s) => s.kind)}::text[], ${signals.map((s) => s.contactId)}::text[],
                ${signals.map((s) => s.key ?? '')}::text[], ${signals.map((s) => (s.data ? JSON.stringify(s.data) : null))}::jsonb[])
      as x(id, kind, contact_id, key, data)
    where x.kind = 'event' or ${interested(accountId, sql`x.kind`, sql`x.key`)}`.execute(db);
  return ids;
}

/** Replaces what `subscriber` (an automation) is interested in. */
export async function declareInterests(db: Db, accountId: string, subscriber: string, interests: readonly { kind: SignalKind; key: string }[]): Promise<void> {
  await db.deleteFrom('signal_interests').where('account_id', '=', accountId).where('subscriber', '=', subscriber).execute();
  if (!interests.length) return;
  await db
    .insertInto('signal_interests')
    .values(interests.map((i) => ({ account_id: accountId, subscriber, kind: i.kind, key: i.key })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Takes (deletes) up to `limit` signals, oldest first, skipping those another transaction holds:
 * one account's at a time (under Citus, one shard's), the accounts of the oldest in turn.
 */
export async function takeSignals(tx: Db, limit: number): Promise<TakenSignal[]> {
  const { rows: oldest } = await sql<{ account_id: string }>`select account_id from contact_signals order by created_at, id limit ${limit}`.execute(tx);
  const taken: TakenSignal[] = [];
  for (const accountId of new Set(oldest.map((row) => row.account_id))) {
    if (taken.length >= limit) break;
    const { rows } = await sql<TakenSignal>`
      delete from contact_signals s using (
        select account_id, id from contact_signals where account_id = ${accountId} order by created_at, id limit ${limit - taken.length} for update skip locked
      ) t
      where s.account_id = ${accountId} and s.account_id = t.account_id and s.id = t.id
      returning s.account_id, s.id, s.kind, s.contact_id, s.key, s.data, s.created_at`.execute(tx);
    taken.push(...rows);
  }
  return taken.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1));
}

/** Erasure: the contact's signals not acted on yet; answers how many. */
export async function forgetSignals(db: Db, accountId: string, contactId: string): Promise<number> {
  const result = await db.deleteFrom('contact_signals').where('account_id', '=', accountId).where('contact_id', '=', contactId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

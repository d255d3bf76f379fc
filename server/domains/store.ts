import { sql, type Selectable } from 'kysely';
import { newId } from '../db/ids.ts';
import type { Database, Db, Tx } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { DomainStatus } from './entities.ts';
import type { RecordChecks } from './records.ts';

/** Every statement on `sending_domains`. */

export type DomainRow = Selectable<Database['sending_domains']>;

export interface SealedKey {
  selector: string;
  publicKey: string;
  privateKeySealed: string;
}

/**
 * Adds a domain unless the account has it or has `limit` domains already. Run in a transaction:
 * the account's lock makes the count and the insert one step, so two requests at once cannot
 * pass the limit together.
 */
export async function insertDomain(
  tx: Tx,
  accountId: string,
  name: string,
  key: SealedKey,
  limit: number,
): Promise<{ row: DomainRow } | { existingId: string } | { overLimit: true }> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`sending_domains ${accountId}`}, 0))`.execute(tx);
  const existing = await tx.selectFrom('sending_domains').select('id').where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
  if (existing) return { existingId: existing.id };
  const { count } = await tx
    .selectFrom('sending_domains')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= limit) return { overLimit: true };
  const row = await tx
    .insertInto('sending_domains')
    .values({
      id: newId('dom'),
      account_id: accountId,
      name,
      status: 'pending',
      dkim_selector: key.selector,
      dkim_public_key: key.publicKey,
      dkim_private_key_sealed: key.privateKeySealed,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row };
}

export function findDomain(db: Db, accountId: string, id: string): Promise<DomainRow | undefined> {
  return db.selectFrom('sending_domains').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function listDomains(db: Db, accountId: string, after: Cursor | null, limit: number): Promise<DomainRow[]> {
  return keysetPage(db.selectFrom('sending_domains').selectAll().where('account_id', '=', accountId), OLDEST_FIRST, after, limit).execute();
}

export async function deleteDomain(db: Db, accountId: string, id: string): Promise<boolean> {
  const { numDeletedRows } = await db.deleteFrom('sending_domains').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return numDeletedRows > 0n;
}

/** The verified domain among `names` with the longest name (the nearest to the address), if any. */
export function nearestVerified(db: Db, accountId: string, names: string[]): Promise<DomainRow | undefined> {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('name', '=', sql<string>`any(${names})`)
    .where('status', '=', 'verified')
    .orderBy(sql`length(name)`, 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function accountHasDomains(db: Db, accountId: string): Promise<boolean> {
  return !!(await db.selectFrom('sending_domains').select('id').where('account_id', '=', accountId).limit(1).executeTakeFirst());
}

/**
 * Records a check. Written only while the row still has the keys that were checked (`selectors`):
 * a rotation or retirement meanwhile wins, and the next check sees it.
 */
export function recordCheck(
  db: Db,
  accountId: string,
  id: string,
  selectors: { current: string; next: string | null },
  checks: RecordChecks,
  status: DomainStatus,
): Promise<DomainRow | undefined> {
  return db
    .updateTable('sending_domains')
    .set({
      record_checks: checks,
      status,
      checked_at: sql`now()`,
      // The time as a value: Citus refuses now() inside a COALESCE of a statement that changes rows.
      verified_at: status === 'verified' ? sql`coalesce(verified_at, ${new Date()}::timestamptz)` : sql`verified_at`,
      updated_at: sql`now()`,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('dkim_selector', '=', selectors.current)
    .where((eb) => (selectors.next === null ? eb('next_dkim_selector', 'is', null) : eb('next_dkim_selector', '=', selectors.next)))
    .returningAll()
    .executeTakeFirst();
}

/** Adds the next key, unless one is waiting already (then undefined). */
export function addNextKey(db: Db, accountId: string, id: string, key: SealedKey): Promise<DomainRow | undefined> {
  return db
    .updateTable('sending_domains')
    .set({ next_dkim_selector: key.selector, next_dkim_public_key: key.publicKey, next_dkim_private_key_sealed: key.privateKeySealed, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('next_dkim_selector', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Makes the next key the current one, if it is still `nextSelector` (a retirement at once does it once). */
export function promoteNextKey(db: Db, accountId: string, id: string, nextSelector: string): Promise<DomainRow | undefined> {
  return db
    .updateTable('sending_domains')
    .set((eb) => ({
      dkim_selector: eb.ref('next_dkim_selector').$notNull(),
      dkim_public_key: eb.ref('next_dkim_public_key').$notNull(),
      dkim_private_key_sealed: eb.ref('next_dkim_private_key_sealed').$notNull(),
      next_dkim_selector: null,
      next_dkim_public_key: null,
      next_dkim_private_key_sealed: null,
      updated_at: sql`now()`,
    }))
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('next_dkim_selector', '=', nextSelector)
    .returningAll()
    .executeTakeFirst();
}

/** Verified domains not checked for `ageSeconds`, oldest check first: the daily re-check's work. */
export function domainsDue(db: Db, ageSeconds: number, limit: number): Promise<DomainRow[]> {
  return db
    .selectFrom('sending_domains')
    .selectAll()
    .where('status', '=', 'verified')
    .where('checked_at', '<', sql<Date>`now() - make_interval(secs => ${ageSeconds})`)
    .orderBy('checked_at')
    .limit(limit)
    .execute();
}

export function sealedKeys(db: Db) {
  return db.selectFrom('sending_domains').select(['id', 'dkim_private_key_sealed', 'next_dkim_private_key_sealed']).execute();
}

/** Replaces a domain's sealed keys while it still holds `read`: a rotation or retirement meanwhile wins. */
export async function resealKeys(
  db: Db,
  id: string,
  read: { dkim_private_key_sealed: string; next_dkim_private_key_sealed: string | null },
  sealed: { dkim_private_key_sealed: string; next_dkim_private_key_sealed: string | null },
): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('sending_domains')
    .set(sealed)
    .where('id', '=', id)
    .where('dkim_private_key_sealed', '=', read.dkim_private_key_sealed)
    .where(sql<boolean>`next_dkim_private_key_sealed is not distinct from ${read.next_dkim_private_key_sealed}`)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

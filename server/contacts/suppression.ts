import { groupByAccount } from '../db/by-account.ts';
import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { EventData, PendingEvent } from '../events/types.ts';
import type { ContactStatus } from './rules.ts';
import { countingChanges, type StatusChange } from './status-counts.ts';

/**
 * The contacts' public writes of deliverability: how feedback, sending, transactional email and
 * the suppression list suppress a contact or subscribe it again, and count its soft bounces.
 * Each runs in the caller's transaction on `db`; those that change a status answer the events
 * for the caller to append there.
 */

// ---- Suppression: the one way a contact becomes unsubscribed, bounced or complained.

export type SuppressedStatus = Exclude<ContactStatus, 'subscribed'>;

/**
 * What feedback may suppress: a complaint outranks an unsubscribe; a bounced or complained
 * address stays as it is. A person changing a contact (`any`) may set any suppressed status.
 */
const FEEDBACK_REPLACES: Record<SuppressedStatus, ContactStatus[]> = {
  unsubscribed: ['subscribed'],
  bounced: ['subscribed'],
  complained: ['subscribed', 'unsubscribed'],
};

export interface SuppressOptions {
  /** `feedback` (the default): only the statuses it may replace; `any`: every other status. */
  over?: 'feedback' | 'any';
}

/**
 * Suppresses the account's contacts among `contactIds` whose status it may replace, and
 * returns their `contact.suppressed` events, for the caller to append in the same transaction.
 * Contacts already suppressed (or not the account's) change nothing and have no event.
 */
export async function suppress(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
  status: SuppressedStatus,
  reason: string | null,
  options: SuppressOptions = {},
): Promise<PendingEvent[]> {
  if (!contactIds.length) return [];
  // Row locks in id order: concurrent suppressions never deadlock on each other.
  const ids = [...new Set(contactIds)].sort();
  const from =
    options.over === 'any' ? (['subscribed', 'unsubscribed', 'bounced', 'complained'] as const).filter((s) => s !== status) : FEEDBACK_REPLACES[status];
  const { rows } = await sql<{ id: string; email: string }>`
    with suppressed as (
      update contacts set status = ${status}, status_reason = ${reason}, status_changed_at = now(), updated_at = now()
      where account_id = ${accountId} and id = any(${ids}::text[]) and status = any(${from}::text[])
      returning id, email, account_id, old.status as before, status as after
    ), counted as (${countingChanges(sql<StatusChange>`select account_id, before, after from suppressed`)})
    select id, email from suppressed`.execute(db);
  return rows.map((r) => suppressedEvent(r.id, r.email, status, reason));
}

/**
 * The event of a suppression, for `suppress` and for the one suppression made through the ORM's
 * unit of work: a person's edit of a contact, whose status is flushed with the other fields.
 */
export function suppressedEvent(
  contactId: string,
  email: string,
  status: SuppressedStatus,
  reason: string | null,
): PendingEvent & { type: 'contact.suppressed' } {
  const data: EventData<'contact.suppressed'> = { contact_id: contactId, email, status, reason };
  return { type: 'contact.suppressed', data };
}

// ---- Soft bounces in a row, which tracking counts toward suppression.

/** One more soft bounce in a row; answers how many there now are. */
export async function countSoftBounce(db: Db, accountId: string, contactId: string): Promise<number> {
  const row = await db
    .updateTable('contacts')
    .set((eb) => ({ soft_bounces: eb('soft_bounces', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', contactId)
    .returning('soft_bounces')
    .executeTakeFirstOrThrow();
  return row.soft_bounces;
}

/** Engagement shows the address works: soft bounces before it no longer count as a row. */
export async function clearSoftBounces(db: Db, contacts: readonly { accountId: string; contactId: string }[]): Promise<void> {
  // In (account, id) order, the order every batch locks contacts in.
  for (const [accountId, ofAccount] of groupByAccount(contacts, (c) => c.accountId)) {
    const ids = [...new Set(ofAccount.map((c) => c.contactId))].sort();
    await db
      .updateTable('contacts')
      .set({ soft_bounces: 0 })
      .where('account_id', '=', accountId)
      .where(sql<boolean>`id = any(${ids}::text[])`)
      .where('soft_bounces', '>', 0)
      .execute();
  }
}

// ---- The suppression list's effects on contacts (server/suppressions).

/** The account's contacts with these addresses (case-insensitive), for the suppression list. */
export async function idsByEmails(db: Db, accountId: string, emails: readonly string[]): Promise<string[]> {
  if (!emails.length) return [];
  const rows = await db
    .selectFrom('contacts')
    .select('id')
    .where('account_id', '=', accountId)
    .where(sql<boolean>`lower(email) = any(${emails.map((e) => e.toLowerCase())}::text[])`)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * An address taken off the suppression list by a person: its contact, when suppressed, is
 * subscribed again with `reason` as its `status_reason`; answers the `contact.subscribed` event.
 */
export async function resubscribeEmail(db: Db, accountId: string, email: string, reason: string): Promise<PendingEvent[]> {
  const rows = await sql<{ id: string; email: string; previous: ContactStatus }>`
    with resubscribed as (
      update contacts c set status = 'subscribed', status_reason = ${reason}, status_changed_at = now(), updated_at = now()
      from (select id, status from contacts where account_id = ${accountId} and lower(email) = lower(${email}) and status <> 'subscribed' for update) p
      where c.account_id = ${accountId} and c.id = p.id
      returning c.id, c.email, c.account_id, p.status as previous, c.status as after
    ), counted as (${countingChanges(sql<StatusChange>`select account_id, previous as before, after from resubscribed`)})
    select id, email, previous from resubscribed`.execute(db);
  return rows.rows.map((r) => ({ type: 'contact.subscribed', data: { contact_id: r.id, email: r.email, previous_status: r.previous } }));
}

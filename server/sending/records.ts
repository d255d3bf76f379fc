import type { Insertable } from 'kysely';
import { newId } from '../db/ids.ts';
import type { Database, Db } from '../db/kysely.ts';
import type { PendingEvent } from '../events/types.ts';

/** A hard bounce the relay answered for one message. */
export interface SmtpBounce {
  messageId: string;
  contactId: string | null;
  email: string;
  reason: string;
  code: number;
}

/** The counts of a campaign batch that its hourly rollup adds up. */
export interface BatchCounts {
  sent: number;
  delivered: number;
  deferred: number;
  failed: number;
}

/**
 * Other modules' tables a send's outcome writes: tracking's bounces and rollups, contacts' status,
 * the suppression list. Declared here and handed in by the composition root; every call writes in
 * the sender's transaction (`tx`).
 */
export interface OutcomeRecords {
  /** A campaign's hard bounces, with their rollups. */
  insertCampaignBounces(tx: Db, accountId: string, campaignId: string, bounces: SmtpBounce[]): Promise<void>;
  insertBounce(tx: Db, row: Insertable<Database['bounces']>): Promise<void>;
  /** A campaign batch's rollups: the hour's counts, and the recipient domains of what was sent. */
  addSendRollups(tx: Db, accountId: string, campaignId: string, at: Date, counts: BatchCounts, sentTo: string[]): Promise<void>;
  /** The account's contacts marked bounced: their `contact.suppressed` events. */
  suppressContacts(tx: Db, accountId: string, contactIds: string[], reason: string): Promise<PendingEvent[]>;
  /** Addresses on the account's suppression list, as bounced by the relay. */
  suppressAddresses(tx: Db, accountId: string, bounces: { email: string; reason: string }[]): Promise<void>;
}

/**
 * A campaign batch's hard bounces: tracking's records, each contact suppressed (its events go to
 * `events`), and every address on the suppression list.
 */
export async function recordCampaignBounces(
  tx: Db,
  records: OutcomeRecords,
  accountId: string,
  campaignId: string,
  bounces: SmtpBounce[],
  events: PendingEvent[],
): Promise<void> {
  await records.insertCampaignBounces(tx, accountId, campaignId, bounces);
  for (const b of bounces) if (b.contactId) events.push(...(await records.suppressContacts(tx, accountId, [b.contactId], b.reason)));
  await records.suppressAddresses(tx, accountId, bounces);
}

/** A transactional copy's hard bounce: tracking's record, and its contact suppressed (the events it makes). */
export async function recordTransactionalBounce(
  tx: Db,
  records: OutcomeRecords,
  bounce: SmtpBounce & { accountId: string; at: Date },
): Promise<PendingEvent[]> {
  await records.insertBounce(tx, {
    id: newId('bnc'),
    account_id: bounce.accountId,
    campaign_id: null,
    message_id: bounce.messageId,
    contact_id: bounce.contactId,
    email: bounce.email,
    type: 'hard',
    reason: bounce.reason,
    diagnostic_code: `smtp; ${bounce.code}`,
    source: 'smtp',
    occurred_at: bounce.at,
  });
  return bounce.contactId ? records.suppressContacts(tx, bounce.accountId, [bounce.contactId], bounce.reason) : [];
}

import type { Db } from '../db/kysely.ts';
import type { PendingEvent } from '../events/types.ts';

/** An address for the account's suppression list, as feedback puts it there. */
export interface FeedbackSuppression {
  email: string;
  reason: 'bounced' | 'complained' | 'unsubscribed';
  source: 'bounce' | 'complaint' | 'unsubscribe_link' | 'one_click';
  detail: string | null;
}

/**
 * What feedback and engagement change of contacts, the suppression list and topic opt-outs, in
 * tracking's transaction (`tx`): declared here and handed in by the composition root.
 */
export interface ContactRecords {
  /** The account's contacts among `contactIds` suppressed: their `contact.suppressed` events. */
  suppress(tx: Db, accountId: string, contactIds: string[], status: 'bounced' | 'complained' | 'unsubscribed', reason: string | null): Promise<PendingEvent[]>;
  /** Adds a soft bounce to the contact's row of them: how many there are now. */
  countSoftBounce(tx: Db, accountId: string, contactId: string): Promise<number>;
  clearSoftBounces(tx: Db, contacts: { accountId: string; contactId: string }[]): Promise<void>;
  /** The addresses added (those not listed already). */
  addSuppressions(tx: Db, accountId: string, entries: FeedbackSuppression[]): Promise<string[]>;
  /** False when the contact had opted out of the topic already. */
  optOut(tx: Db, accountId: string, topicId: string, contactId: string): Promise<boolean>;
}

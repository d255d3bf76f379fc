import type { Db } from '../db/kysely.ts';
import { forgetSignals } from '../signals/outbox.ts';
import { enrollments } from './store.ts';

/**
 * Erasure (GDPR): the contact leaves every journey it is in (`exited`, `contact_erased`), its
 * enrolments drop what they kept of its events, and signals not yet acted on go. Answers how many
 * records it changed or removed.
 */
export async function leaveJourneys(db: Db, accountId: string, contactId: string): Promise<number> {
  const exited = await enrollments.exitAll(db, accountId, { contactId }, 'contact_erased');
  const forgotten = await enrollments.forgetContexts(db, accountId, contactId);
  return exited + forgotten + (await forgetSignals(db, accountId, contactId));
}

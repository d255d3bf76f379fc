import type { Db } from '../db/kysely.ts';
import { newId } from '../db/ids.ts';
import { formatAddress } from '../rendering/mime.ts';
import { emails, type Refusal } from './store.ts';
import { announceQueued } from './wake.ts';

/** One automation email, rendered for its contact. */
export interface JourneyEmail {
  /** The message's id (`em_…`), made beforehand: its unsubscribe link names it. */
  id: string;
  accountId: string;
  email: string;
  fromEmail: string;
  fromName: string | null;
  subject: string;
  html: string | null;
  text: string | null;
  /** Such as List-Unsubscribe: automation emails are marketing. */
  headers: Record<string, string>;
  journey: { automationId: string; stepId: string; enrollmentId: string };
}

/**
 * Queues automation emails in the caller's transaction, as transactional copies that name their
 * journey: they are sent, tracked, retried and recorded as any other (`email.*` events with
 * `stream: "automation"`). Answers each email's message id, or why its address was refused.
 */
export async function queueJourneyEmails(tx: Db, items: readonly JourneyEmail[]): Promise<({ id: string } | { refused: Refusal })[]> {
  if (!items.length) return [];
  const requests = items.map((item) => ({
    content: {
      id: newId('emc'),
      accountId: item.accountId,
      fromEmail: item.fromEmail,
      fromName: item.fromName,
      replyTo: null,
      toHeader: formatAddress(item.email, null),
      ccHeader: null,
      subject: item.subject,
      html: item.html,
      text: item.text,
      headers: item.headers,
      attachments: [],
    },
    recipients: [{ id: item.id, email: item.email, kind: 'to' as const }],
    shared: { tags: [], metadata: {}, trackOpens: true, trackClicks: true, scheduledAt: null, journey: item.journey },
  }));
  const refused = await emails.insertMany({ db: tx }, requests);
  return requests.map(({ recipients: [r] }) => {
    const reason = refused.get(r.id);
    return reason ? { refused: reason } : { id: r.id };
  });
}

/** Wakes this process's senders once the queuing transaction has committed. */
export const journeyEmailsQueued = announceQueued;

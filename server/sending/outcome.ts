import type { EventData, PendingEvent } from '../events/types.ts';
import type { SendOutcome } from './transport.ts';

/** When a deferred message is tried again: `retrySeconds`, doubled each attempt, `maxAttempts` in all. */
export interface RetryPolicy {
  maxAttempts: number;
  retrySeconds: number;
}

/** What a message's send produced: the relay's answer, or a render that failed before it. */
export type Attempted = SendOutcome | { kind: 'render_failed'; reason: string };

/** The fields every `email.*` event of the message carries (its stream's own among them). */
export type EmailEventBase = Omit<EventData<'email.sent'>, 'sent_at'>;

/**
 * What an attempt means for the message, the same for every stream (campaign, transactional):
 * the status to record, the events it makes, and the hard bounce that suppresses the address.
 */
export interface OutcomeMeaning {
  status: 'delivered' | 'bounced' | 'deferred' | 'failed' | 'queued';
  reason: string | null;
  nextAttemptAt: Date | null;
  sent: boolean;
  events: PendingEvent[];
  bounce: { reason: string; code: number } | null;
}

/**
 * The meaning of one attempt (the `attempts`-th) of a message. A relay failure alone puts it
 * back in the queue, due at `requeueAt` (null: as if never claimed), with no event.
 */
export function meaningOf(
  outcome: Attempted,
  attempt: { attempts: number; base: EmailEventBase; now: Date; requeueAt: Date | null },
  policy: RetryPolicy,
): OutcomeMeaning {
  const { attempts, base, now } = attempt;
  const plain = { nextAttemptAt: null, sent: false, bounce: null };
  switch (outcome.kind) {
    case 'accepted':
      return {
        ...plain,
        status: 'delivered',
        reason: null,
        sent: true,
        events: [
          { type: 'email.sent', data: { ...base, sent_at: now.toISOString() } },
          { type: 'email.delivered', data: { ...base, smtp_response: outcome.response } },
        ],
      };
    case 'rejected':
      return {
        ...plain,
        status: 'bounced',
        reason: outcome.response,
        events: [{ type: 'email.bounced', data: { ...base, bounce_type: 'hard', reason: outcome.response, diagnostic_code: `smtp; ${outcome.code}` } }],
        bounce: { reason: outcome.response, code: outcome.code },
      };
    case 'deferred': {
      if (attempts >= policy.maxAttempts) {
        const reason = `gave up after ${attempts} attempts: ${outcome.response}`;
        return { ...plain, status: 'failed', reason, events: [{ type: 'email.failed', data: { ...base, reason: outcome.response } }] };
      }
      const next = new Date(now.getTime() + policy.retrySeconds * 1000 * 2 ** (attempts - 1));
      return {
        ...plain,
        status: 'deferred',
        reason: outcome.response,
        nextAttemptAt: next,
        events: [{ type: 'email.deferred', data: { ...base, reason: outcome.response, attempt: attempts, next_attempt_at: next.toISOString() } }],
      };
    }
    case 'render_failed':
    case 'refused': {
      const reason = outcome.kind === 'refused' ? `the relay refused it: ${outcome.response}` : `rendering failed: ${outcome.reason}`;
      return { ...plain, status: 'failed', reason, events: [{ type: 'email.failed', data: { ...base, reason } }] };
    }
    case 'transport_error':
      return { ...plain, status: 'queued', reason: outcome.error, nextAttemptAt: attempt.requeueAt, events: [] };
  }
}

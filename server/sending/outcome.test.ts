import { describe, expect, it } from 'vitest';
import { meaningOf, type EmailEventBase } from './outcome.ts';

const base: EmailEventBase = { message_id: 'msg_1', campaign_id: 'cmp_1', contact_id: 'ct_1', email: 'ann@example.com' };
const now = new Date('2026-11-28T12:00:00Z');
const policy = { maxAttempts: 3, retrySeconds: 60 };
const attempt = (attempts: number, requeueAt: Date | null = null) => ({ attempts, base, now, requeueAt });

describe('what an attempt means for a message', () => {
  it('accepted: delivered and sent, with both events', () => {
    const m = meaningOf({ kind: 'accepted', response: '250 ok' }, attempt(1), policy);
    expect(m).toMatchObject({ status: 'delivered', reason: null, sent: true, bounce: null });
    expect(m.events).toEqual([
      { type: 'email.sent', data: { ...base, sent_at: now.toISOString() } },
      { type: 'email.delivered', data: { ...base, smtp_response: '250 ok' } },
    ]);
  });

  it('rejected: a hard bounce to record, with its SMTP code', () => {
    const m = meaningOf({ kind: 'rejected', code: 550, response: '550 no such user' }, attempt(1), policy);
    expect(m).toMatchObject({ status: 'bounced', reason: '550 no such user', sent: false, bounce: { reason: '550 no such user', code: 550 } });
    expect(m.events).toEqual([{ type: 'email.bounced', data: { ...base, bounce_type: 'hard', reason: '550 no such user', diagnostic_code: 'smtp; 550' } }]);
  });

  it('deferred: tried again after a delay doubled each attempt, then given up', () => {
    const deferred = { kind: 'deferred', code: 451, response: '451 later' } as const;
    expect(meaningOf(deferred, attempt(1), policy).nextAttemptAt).toEqual(new Date(now.getTime() + 60_000));
    const second = meaningOf(deferred, attempt(2), policy);
    expect(second).toMatchObject({ status: 'deferred', reason: '451 later', nextAttemptAt: new Date(now.getTime() + 120_000) });
    expect(second.events).toEqual([
      { type: 'email.deferred', data: { ...base, reason: '451 later', attempt: 2, next_attempt_at: new Date(now.getTime() + 120_000).toISOString() } },
    ]);
    const last = meaningOf(deferred, attempt(3), policy);
    expect(last).toMatchObject({ status: 'failed', reason: 'gave up after 3 attempts: 451 later', nextAttemptAt: null, bounce: null });
    expect(last.events).toEqual([{ type: 'email.failed', data: { ...base, reason: '451 later' } }]);
  });

  it('refused or not rendered: failed with the reason, no bounce', () => {
    expect(meaningOf({ kind: 'refused', code: 501, response: '501 syntax' }, attempt(1), policy)).toMatchObject({
      status: 'failed',
      reason: 'the relay refused it: 501 syntax',
      bounce: null,
    });
    expect(meaningOf({ kind: 'render_failed', reason: 'unknown tag' }, attempt(1), policy)).toMatchObject({
      status: 'failed',
      reason: 'rendering failed: unknown tag',
    });
  });

  it('a relay failure: back to the queue at the time given, with no event', () => {
    expect(meaningOf({ kind: 'transport_error', error: 'ECONNREFUSED' }, attempt(1, now), policy)).toEqual({
      status: 'queued',
      reason: 'ECONNREFUSED',
      nextAttemptAt: now,
      sent: false,
      events: [],
      bounce: null,
    });
  });
});

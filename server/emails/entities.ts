import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { StoredAttachment } from '../rendering/transactional-message.ts';

export const EMAIL_STATUSES = ['scheduled', 'queued', 'sending', 'delivered', 'deferred', 'bounced', 'failed', 'cancelled'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
export const RECIPIENT_KINDS = ['to', 'cc', 'bcc'] as const;
export type RecipientKind = (typeof RECIPIENT_KINDS)[number];

/** What a `POST /emails` request sends, stored once for all its recipients; written by `store.ts`. */
export const EmailContent = defineEntity({
  name: 'EmailContent',
  tableName: 'email_contents',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    fromEmail: p.string(),
    fromName: p.string().nullable(),
    replyTo: p.string().nullable(),
    /** The `To` and `Cc` headers every recipient's copy shows (Bcc shows in none). */
    toHeader: p.string(),
    ccHeader: p.string().nullable(),
    subject: p.string(),
    html: p.text().nullable(),
    text: p.text().nullable(),
    headers: p.json<Record<string, string>>(),
    attachments: p.json<StoredAttachment[]>(),
    /** When the body, custom headers and attachments were dropped (`EMAIL_CONTENT_RETENTION_DAYS`). */
    prunedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

/** One recipient's copy of a transactional email; written by `store.ts`. */
export const Email = defineEntity({
  name: 'Email',
  tableName: 'emails',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    contentId: p.string(),
    contactId: p.string().nullable(),
    email: p.string(),
    kind: p.enum([...RECIPIENT_KINDS]),
    status: p.enum([...EMAIL_STATUSES]),
    reason: p.string().nullable(),
    attempts: p.integer().default(0),
    tags: p.array().columnType('text[]'),
    metadata: p.json<Record<string, string>>(),
    trackOpens: p.boolean(),
    trackClicks: p.boolean(),
    scheduledAt: p.datetime().nullable(),
    /** When it may be claimed: now, its scheduled time, its retry, or the end of a claim's lease. */
    nextAttemptAt: p.datetime().nullable(),
    sentAt: p.datetime().nullable(),
    openedAt: p.datetime().nullable(),
    humanOpenedAt: p.datetime().nullable(),
    clickedAt: p.datetime().nullable(),
    clickedLinks: p.array<number>().columnType('integer[]').default([]),
    bouncedAt: p.datetime().nullable(),
    complainedAt: p.datetime().nullable(),
    /** When it reached a final state (delivered, bounced, failed, cancelled): its content's retention counts from the last copy's. */
    finishedAt: p.datetime().nullable(),
    /** When its recipient unsubscribed through it (automation copies carry an unsubscribe link). */
    unsubscribedAt: p.datetime(3).nullable(),
    /** Set on the copies an automation's `send_email` step queued. */
    automationId: p.text().nullable(),
    automationStepId: p.text().nullable(),
    enrollmentId: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type EmailRow = InferEntity<typeof Email>;
export type EmailContentRow = InferEntity<typeof EmailContent>;

import { defineEntity, p } from '@mikro-orm/core';

export const CONTACT_STATUSES = ['subscribed', 'unsubscribed', 'bounced', 'complained'] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** Suppressed contacts are never sent to. */
export const isSuppressed = (status: ContactStatus) => status !== 'subscribed';

export const Contact = defineEntity({
  name: 'Contact',
  tableName: 'contacts',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    email: p.string(),
    firstName: p.string().nullable(),
    lastName: p.string().nullable(),
    attributes: p.json<Record<string, unknown>>(),
    tags: p.array().columnType('text[]'),
    status: p.enum([...CONTACT_STATUSES]),
    statusReason: p.string().nullable(),
    statusChangedAt: p.datetime().nullable(),
    lastImportId: p.string().nullable().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type ContactRow = typeof Contact.infer;

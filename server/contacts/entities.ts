import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CONTACT_STATUSES } from './rules.ts';

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
    /** An IANA name; null: the account's applies. */
    timezone: p.string().nullable(),
    status: p.enum([...CONTACT_STATUSES]),
    statusReason: p.string().nullable(),
    statusChangedAt: p.datetime().nullable(),
    lastImportId: p.string().nullable().hidden(),
    /** Soft bounces in a row, with no open or click between them (tracking keeps it). */
    softBounces: p.integer().default(0).hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type ContactRow = InferEntity<typeof Contact>;

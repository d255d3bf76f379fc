import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { FIELD_TYPES } from './rules.ts';

/** A custom field: a typed key of `contacts.attributes` (migration `SegmentsAndFields`). */
export const ContactField = defineEntity({
  name: 'ContactField',
  tableName: 'contact_fields',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    key: p.string(),
    label: p.string(),
    type: p.enum([...FIELD_TYPES]),
    options: p.json<string[]>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type ContactFieldRow = InferEntity<typeof ContactField>;

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    seq: p.bigint('string').persist(false),
    accountId: p.string(),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Fanned out to the matching webhooks (or born so, when none could match). */
    dispatched: p.boolean().default(false),
  },
});

export type EventRow = InferEntity<typeof Event>;

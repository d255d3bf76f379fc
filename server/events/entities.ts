import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    /** The order events were written in (a `bigserial`): set by the database, never by the ORM. */
    seq: p.bigint('string').defaultRaw("nextval('events_seq_seq')"),
    accountId: p.string(),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    /** Whether the webhook dispatcher is done with it (see `append` in store.ts). */
    dispatched: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type EventRow = InferEntity<typeof Event>;

/** The accounts a process holds WebSocket clients of: see `EventSubscribers` (subscribers.ts). */
export const EventSubscriber = defineEntity({
  name: 'EventSubscriber',
  tableName: 'event_subscribers',
  properties: {
    accountId: p.string().primary(),
    listener: p.string().primary(),
    seenAt: p.datetime(),
  },
});

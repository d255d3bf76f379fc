import { defineEntity, p } from '@mikro-orm/core';

/** Something that happened to a contact that may enrol it somewhere; written and taken by `outbox.ts`. */
export const ContactSignal = defineEntity({
  name: 'ContactSignal',
  tableName: 'contact_signals',
  properties: {
    accountId: p.text().primary(),
    id: p.text().primary(),
    kind: p.text(),
    contactId: p.text(),
    key: p.text().default(''),
    data: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
  },
});

/** Which signals someone waits for: signals nobody waits for are never written. */
export const SignalInterest = defineEntity({
  name: 'SignalInterest',
  tableName: 'signal_interests',
  properties: {
    accountId: p.text().primary(),
    kind: p.text().primary(),
    key: p.text().primary(),
    subscriber: p.text().primary(),
  },
});

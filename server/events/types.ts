import type { components } from '../../generated/openapi.d.ts';

/** The 26 event types of the catalogue. */
export const EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.deferred',
  'email.opened',
  'email.clicked',
  'email.bounced',
  'email.complained',
  'email.unsubscribed',
  'email.failed',
  'campaign.scheduled',
  'campaign.started',
  'campaign.paused',
  'campaign.resumed',
  'campaign.completed',
  'campaign.cancelled',
  'campaign.failed',
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.subscribed',
  'contact.suppressed',
  'import.completed',
  'conversion.created',
  'affiliate.conversion',
  'payment.received',
  'webhook.test',
] as const satisfies readonly EventType[];

/** Every event as the contract describes it: the envelope and the payload of its type. */
export type SendlineEvent = components['schemas']['Event'];
export type EventType = SendlineEvent['type'];
export type EventData<T extends EventType> = Extract<SendlineEvent, { type: T }>['data'];

/** An event about to be written: its payload is checked against its type's schema. */
export type PendingEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

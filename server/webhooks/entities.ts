import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

export type DeliveryStatus = components['schemas']['DeliveryStatus'];
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const satisfies readonly DeliveryStatus[];

/** Why an endpoint was disabled: it answered 410, or it had no success for too long. */
export type DisabledReason = 'gone' | 'failing';

export const Webhook = defineEntity({
  name: 'Webhook',
  tableName: 'webhooks',
  properties: {
    id: p.text().primary(),
    accountId: p.text(),
    url: p.text(),
    description: p.text().nullable(),
    events: p.array().columnType('text[]'),
    active: p.boolean().default(true),
    disabledReason: p.text().nullable(),
    secretSealed: p.text().hidden(),
    previousSecretSealed: p.text().nullable().hidden(),
    previousSecretExpiresAt: p.datetime(3).nullable(),
    lastSuccessAt: p.datetime(3).nullable(),
    lastFailureAt: p.datetime(3).nullable(),
    failingSince: p.datetime(3).nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p
      .datetime(3)
      .defaultRaw('now()')
      .onUpdate(() => new Date()),
  },
});

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  uniques: [{ name: 'webhook_deliveries_webhook_id_event_id_key', properties: ['webhookId', 'eventId'] }],
  properties: {
    id: p.text().primary(),
    webhookId: p.text(),
    accountId: p.text(),
    eventId: p.text(),
    eventType: p.text(),
    status: p.enum([...DELIVERY_STATUSES]),
    attempts: p.integer().default(0),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    responseExcerpt: p.text().nullable(),
    error: p.text().nullable(),
    nextRetryAt: p.datetime(3).nullable(),
    lockedUntil: p.datetime(3).nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p
      .datetime(3)
      .defaultRaw('now()')
      .onUpdate(() => new Date()),
  },
});

export type WebhookRow = InferEntity<typeof Webhook>;
export type WebhookDeliveryRow = InferEntity<typeof WebhookDelivery>;

import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ATTRIBUTIONS = ['click_token', 'campaign_id', 'last_click', 'none'] as const;
/** A payment names no click token. */
export const PAYMENT_ATTRIBUTIONS = ['campaign_id', 'last_click', 'none'] as const;

export const Conversion = defineEntity({
  name: 'Conversion',
  tableName: 'conversions',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    contactId: p.string().nullable(),
    campaignId: p.string().nullable(),
    type: p.string(),
    value: p.decimal('string').precision(19).scale(4).nullable(),
    currency: p.string().nullable(),
    affiliateId: p.string().nullable(),
    externalId: p.string().nullable(),
    attribution: p.enum([...ATTRIBUTIONS]),
    occurredAt: p.datetime(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});

export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    contactId: p.string().nullable(),
    campaignId: p.string().nullable(),
    amount: p.decimal('string').precision(19).scale(4),
    currency: p.string(),
    externalId: p.string(),
    attribution: p.enum([...PAYMENT_ATTRIBUTIONS]),
    occurredAt: p.datetime(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});

/** Conversions and payments per UTC hour, campaign ('' for none) and currency ('' for none). */
export const RevenueHourly = defineEntity({
  name: 'RevenueHourly',
  tableName: 'revenue_hourly',
  properties: {
    accountId: p.string().primary(),
    bucket: p.datetime().primary(),
    campaignId: p.string().primary(),
    currency: p.string().primary(),
    conversions: p.integer().default(0),
    amount: p.decimal('string').precision(21).scale(4).default('0'),
  },
});

export type ConversionRow = InferEntity<typeof Conversion>;
export type PaymentRow = InferEntity<typeof Payment>;

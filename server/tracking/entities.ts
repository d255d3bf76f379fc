import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Raw tracking records and the rollups analytics read (migrations `Tracking`, `HotPaths`, `AscendingIndexes`). */

export const BOUNCE_TYPES = ['hard', 'soft', 'complaint'] as const;
export const BOUNCE_SOURCES = ['smtp', 'dsn', 'arf', 'api'] as const;
export const UNSUBSCRIBE_SOURCES = ['link', 'one_click', 'api'] as const;

export const Open = defineEntity({
  name: 'Open',
  tableName: 'opens',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    campaignId: p.string(),
    messageId: p.string(),
    contactId: p.string().nullable(),
    email: p.string(),
    occurredAt: p.datetime(),
    userAgent: p.text().nullable(),
    ip: p.string().nullable(),
    machine: p.boolean(),
    /** The message's first open, and its first open not flagged as a machine's. */
    isFirst: p.boolean(),
    isFirstHuman: p.boolean(),
  },
});

export const Click = defineEntity({
  name: 'Click',
  tableName: 'clicks',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    campaignId: p.string(),
    messageId: p.string(),
    contactId: p.string().nullable(),
    email: p.string(),
    link: p.integer(),
    url: p.text(),
    occurredAt: p.datetime(),
    userAgent: p.text().nullable(),
    ip: p.string().nullable(),
    isFirst: p.boolean(),
    isFirstForLink: p.boolean(),
  },
});

export const Bounce = defineEntity({
  name: 'Bounce',
  tableName: 'bounces',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    campaignId: p.string().nullable(),
    messageId: p.string().nullable(),
    contactId: p.string().nullable(),
    email: p.string(),
    type: p.enum([...BOUNCE_TYPES]),
    reason: p.text().nullable(),
    diagnosticCode: p.text().nullable(),
    source: p.enum([...BOUNCE_SOURCES]),
    occurredAt: p.datetime(),
  },
});

export const Unsubscribe = defineEntity({
  name: 'Unsubscribe',
  tableName: 'unsubscribes',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    campaignId: p.string(),
    messageId: p.string(),
    contactId: p.string().nullable(),
    email: p.string(),
    source: p.enum([...UNSUBSCRIBE_SOURCES]),
    occurredAt: p.datetime(),
  },
});

/** Per campaign and whole UTC hour. */
export const CampaignHourly = defineEntity({
  name: 'CampaignHourly',
  tableName: 'campaign_hourly',
  properties: {
    campaignId: p.string().primary(),
    bucket: p.datetime().primary(),
    accountId: p.string(),
    sent: p.integer().default(0),
    delivered: p.integer().default(0),
    deferred: p.integer().default(0),
    failed: p.integer().default(0),
    opens: p.integer().default(0),
    uniqueOpens: p.integer().default(0),
    humanOpens: p.integer().default(0),
    clicks: p.integer().default(0),
    uniqueClicks: p.integer().default(0),
    bouncesHard: p.integer().default(0),
    bouncesSoft: p.integer().default(0),
    complaints: p.integer().default(0),
    unsubscribes: p.integer().default(0),
  },
});

export const CampaignLink = defineEntity({
  name: 'CampaignLink',
  tableName: 'campaign_links',
  properties: {
    accountId: p.string(),
    campaignId: p.string().primary(),
    url: p.text().primary(),
    totalClicks: p.integer().default(0),
    uniqueClicks: p.integer().default(0),
  },
});

export const CampaignDomain = defineEntity({
  name: 'CampaignDomain',
  tableName: 'campaign_domains',
  properties: {
    accountId: p.string(),
    campaignId: p.string().primary(),
    domain: p.string().primary(),
    sent: p.integer().default(0),
    delivered: p.integer().default(0),
    opens: p.integer().default(0),
    clicks: p.integer().default(0),
    bounces: p.integer().default(0),
  },
});

/**
 * Contacts by status, kept by the statements that write contacts (contacts/status-counts.ts), in
 * shards chosen by the writing connection so that concurrent writers do not queue on one row:
 * a status's count is the sum of its shards.
 */
export const ContactStatusCount = defineEntity({
  name: 'ContactStatusCount',
  tableName: 'contact_status_counts',
  properties: {
    accountId: p.string().primary(),
    status: p.string().primary(),
    shard: p.integer().columnType('smallint').primary(),
    count: p.bigint('string').default('0'),
  },
});

export type OpenRow = InferEntity<typeof Open>;
export type ClickRow = InferEntity<typeof Click>;
export type BounceRow = InferEntity<typeof Bounce>;
export type UnsubscribeRow = InferEntity<typeof Unsubscribe>;

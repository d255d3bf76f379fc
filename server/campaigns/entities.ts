import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';
import { CAMPAIGN_STATUSES } from './state.ts';
import type { FrozenSegments } from '../segments/service.ts';
import type { CampaignSendTime } from './send-time.ts';

export type AudienceFilter = components['schemas']['Audience'];

/** What chooses the audience, kept as it was at the start for the whole send. */
export interface AudienceDefinition {
  filter: AudienceFilter;
  topicId: string | null;
  segments: FrozenSegments | null;
  /** The rest of an A/B test: contacts of the test group, who have their message, are passed over. */
  afterTest?: boolean;
}

export type ContentSource = components['schemas']['ContentSource'];
export type CampaignVariant = components['schemas']['CampaignVariant'];
export type CampaignAbTest = components['schemas']['CampaignAbTest'];
export type CampaignWinner = components['schemas']['CampaignWinner'];
export const TEST_PHASES = ['testing', 'waiting', 'decided'] as const satisfies readonly components['schemas']['CampaignTestPhase'][];

export const Campaign = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    subject: p.string(),
    fromEmail: p.string(),
    fromName: p.string().strictNullable(),
    replyTo: p.string().strictNullable(),
    content: p.text(),
    textContent: p.text().strictNullable(),
    /** What an editor made `content` from (blocks or Markdown); the dashboard's, never sent. */
    contentSource: p.json<ContentSource>().strictNullable(),
    preheader: p.string().strictNullable(),
    audience: p.json<AudienceFilter>(),
    trackOpens: p.boolean(),
    trackClicks: p.boolean(),
    webVersionLink: p.boolean().default(true),
    archive: p.boolean().default(false),
    /** What the archive renders the campaign with, in place of a contact's fields. */
    archiveMeta: p.json<Record<string, unknown>>().strictNullable(),
    /** An A/B test's variants and rules (`ab-test.ts`). */
    variants: p.json<CampaignVariant[]>().strictNullable(),
    abTest: p.json<CampaignAbTest>().strictNullable(),
    testPhase: p.enum([...TEST_PHASES]).strictNullable(),
    testDecidesAt: p.datetime().strictNullable(),
    winner: p.json<CampaignWinner>().strictNullable(),
    status: p.enum([...CAMPAIGN_STATUSES]),
    failureReason: p.string().strictNullable(),
    scheduledAt: p.datetime().strictNullable(),
    /** The wall-clock time it was scheduled for, when it was (`send-time.ts`). */
    sendTime: p.json<CampaignSendTime>().strictNullable(),
    /** When `sendTime` was set: a contact whose local time came before it is late. */
    sendTimeSetAt: p.datetime().strictNullable(),
    startedAt: p.datetime().strictNullable(),
    completedAt: p.datetime().strictNullable(),
    recipients: p.integer().default(0),
    sent: p.integer().default(0),
    delivered: p.integer().default(0),
    deferred: p.integer().default(0),
    failed: p.integer().default(0),
    bounced: p.integer().default(0),
    opened: p.integer().default(0),
    clicked: p.integer().default(0),
    unsubscribed: p.integer().default(0),
    complained: p.integer().default(0),
    /** The unsubscribe topic: its audience leaves out contacts who left it, and one-click leaves it. */
    topicId: p.string().strictNullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    templateId: p.string().strictNullable(),
    templateVersion: p.integer().strictNullable(),
    templateData: p.json<Record<string, unknown>>().strictNullable(),
  },
});

export type CampaignRow = InferEntity<typeof Campaign>;

export type MessageStatus = components['schemas']['MessageStatus'];
export const MESSAGE_STATUSES = [
  'queued',
  'sending',
  'sent',
  'delivered',
  'deferred',
  'bounced',
  'failed',
  'cancelled',
] as const satisfies readonly MessageStatus[];

/** One recipient of a campaign, frozen when sending starts; written by the campaigns store. */
export const Message = defineEntity({
  name: 'Message',
  tableName: 'messages',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    campaignId: p.string(),
    contactId: p.string().strictNullable(),
    email: p.string(),
    status: p.enum([...MESSAGE_STATUSES]),
    /** The A/B test's variant it carries. */
    variant: p.string().strictNullable(),
    reason: p.string().strictNullable(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().strictNullable(),
    claimedAt: p.datetime().strictNullable(),
    sentAt: p.datetime().strictNullable(),
    openedAt: p.datetime().strictNullable(),
    humanOpenedAt: p.datetime().strictNullable(),
    clickedAt: p.datetime().strictNullable(),
    clickedLinks: p.array<number>().columnType('integer[]').default([]),
    unsubscribedAt: p.datetime().strictNullable(),
    complainedAt: p.datetime().strictNullable(),
    bouncedAt: p.datetime().strictNullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export type MessageRow = InferEntity<typeof Message>;

/** What chooses a started campaign's audience, and how far its messages are written (`audience.ts`). */
export const CampaignAudience = defineEntity({
  name: 'CampaignAudience',
  tableName: 'campaign_audiences',
  properties: {
    campaignId: p.string().primary(),
    accountId: p.string(),
    definition: p.json<AudienceDefinition>(),
    frozenAt: p.datetime(),
    afterCreatedAt: p.datetime().strictNullable(),
    afterId: p.string().strictNullable(),
    doneAt: p.datetime().strictNullable(),
  },
});

/** A piece of an audience being sent: its contacts' range, until their messages are recorded (`audience.ts`). */
export const CampaignAudiencePiece = defineEntity({
  name: 'CampaignAudiencePiece',
  tableName: 'campaign_audience_pieces',
  properties: {
    id: p.bigint('string').primary().autoincrement(),
    accountId: p.string(),
    campaignId: p.string(),
    afterCreatedAt: p.datetime().strictNullable(),
    afterId: p.string().strictNullable(),
    lastCreatedAt: p.datetime(),
    lastId: p.string(),
    takenAt: p.datetime().strictNullable(),
  },
});

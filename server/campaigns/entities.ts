import type { components } from '../../generated/openapi.d.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CAMPAIGN_STATUSES } from './state.ts';

export type AudienceFilter = components['schemas']['Audience'];

export const Campaign = defineEntity({
  name: 'Campaign',
  tableName: 'campaigns',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    subject: p.string(),
    fromEmail: p.string(),
    fromName: p.string().nullable(),
    replyTo: p.string().nullable(),
    content: p.text(),
    textContent: p.text().nullable(),
    preheader: p.string().nullable(),
    audience: p.json<AudienceFilter>(),
    trackOpens: p.boolean(),
    trackClicks: p.boolean(),
    status: p.enum([...CAMPAIGN_STATUSES]),
    failureReason: p.string().nullable(),
    scheduledAt: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
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
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});

export type CampaignRow = InferEntity<typeof Campaign>;

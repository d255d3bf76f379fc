import type { Scope } from '../principal.ts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    accountId: p.string(),
    name: p.string(),
    prefix: p.string(),
    keyHash: p.string().hidden(),
    scopes: p.array<Scope>().columnType('text[]'),
    allowedIps: p.array().columnType('text[]'),
    rateLimitPerMinute: p.integer().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
  },
});

export type ApiKeyRow = InferEntity<typeof ApiKey>;

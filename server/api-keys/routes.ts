import type { components } from '../../generated/openapi.d.ts';
import { handlers } from '../http/operations.ts';
import { requireUser } from '../auth/middleware.ts';
import type { ApiKeyRow } from './entities.ts';

const MANAGERS = ['owner', 'admin'] as const;

export const apiKeyJson = (k: ApiKeyRow, rateLimit: number): components['schemas']['ApiKey'] => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  allowed_ips: k.allowedIps,
  rate_limit_per_minute: rateLimit,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
});

export const apiKeyHandlers = handlers({
  ApiKeys_create: async ({ principal, body, services }) => {
    requireUser(principal, [...MANAGERS]);
    const { key, secret } = await services.apiKeys.create(principal.accountId, body);
    return { status: 201, body: { ...apiKeyJson(key, services.apiKeys.rateLimitOf(key)), key: secret } };
  },

  ApiKeys_list: async ({ principal, query, services }) => {
    requireUser(principal, [...MANAGERS]);
    const page = await services.apiKeys.list(principal.accountId, query.limit ?? 50, query.cursor);
    return { status: 200, body: { ...page, data: page.data.map((k) => apiKeyJson(k, services.apiKeys.rateLimitOf(k))) } };
  },

  ApiKeys_get: async ({ principal, params, services }) => {
    requireUser(principal, [...MANAGERS]);
    const key = await services.apiKeys.get(principal.accountId, params.id);
    return { status: 200, body: apiKeyJson(key, services.apiKeys.rateLimitOf(key)) };
  },

  ApiKeys_update: async ({ principal, params, body, services }) => {
    requireUser(principal, [...MANAGERS]);
    const key = await services.apiKeys.update(principal.accountId, params.id, body);
    return { status: 200, body: apiKeyJson(key, services.apiKeys.rateLimitOf(key)) };
  },

  ApiKeys_delete: async ({ principal, params, services }) => {
    requireUser(principal, [...MANAGERS]);
    await services.apiKeys.revoke(principal.accountId, params.id);
    return { status: 204 };
  },
});

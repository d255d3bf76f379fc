import { handlers } from '../http/operations.ts';
import { requireUser } from '../principal.ts';
import type { ApiKeyService } from './service.ts';

const MANAGERS = ['owner', 'admin'] as const;

export const apiKeyHandlers = handlers<{ apiKeys: ApiKeyService }>()({
  ApiKeys_create: async ({ principal, body, services }) => {
    requireUser(principal, [...MANAGERS]);
    return { status: 201, body: await services.apiKeys.create(principal.accountId, body) };
  },

  ApiKeys_list: async ({ principal, query, services }) => {
    requireUser(principal, [...MANAGERS]);
    return { status: 200, body: await services.apiKeys.list(principal.accountId, query.limit ?? 50, query.cursor) };
  },

  ApiKeys_get: async ({ principal, params, services }) => {
    requireUser(principal, [...MANAGERS]);
    return { status: 200, body: await services.apiKeys.get(principal.accountId, params.id) };
  },

  ApiKeys_update: async ({ principal, params, body, services }) => {
    requireUser(principal, [...MANAGERS]);
    return { status: 200, body: await services.apiKeys.update(principal.accountId, params.id, body) };
  },

  ApiKeys_delete: async ({ principal, params, services }) => {
    requireUser(principal, [...MANAGERS]);
    await services.apiKeys.revoke(principal.accountId, params.id);
    return { status: 204 };
  },
});

import { handlers } from '../http/operations.ts';
import type { TagService } from './service.ts';

/** A bulk call names up to 10,000 contacts by id or email: room for as many long addresses. */
export const TAG_BULK_JSON_LIMITS = { Tags_bulk: 4 * 1024 * 1024 };

export const tagHandlers = handlers<{ tags: TagService }>()({
  Tags_list: async ({ principal, query, services }) => ({ status: 200, body: await services.tags.list(principal.accountId, query.limit ?? 50, query.cursor) }),
  Tags_rename: async ({ principal, params, body, services }) => ({ status: 200, body: await services.tags.rename(principal.accountId, params.name, body) }),
  Tags_delete: async ({ principal, params, services }) => {
    await services.tags.delete(principal.accountId, params.name);
    return { status: 204 };
  },
  Tags_bulk: async ({ principal, body, services }) => ({ status: 200, body: await services.tags.bulk(principal.accountId, body) }),
});

import { handlers } from '../http/operations.ts';
import type { TopicService } from './service.ts';

export const topicHandlers = handlers<{ topics: TopicService }>()({
  Topics_create: async ({ principal, body, services }) => ({ status: 201, body: await services.topics.create(principal.accountId, body) }),

  Topics_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.topics.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),

  Topics_get: async ({ principal, params, services }) => ({ status: 200, body: await services.topics.get(principal.accountId, params.id) }),

  Topics_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.topics.update(principal.accountId, params.id, body),
  }),

  Topics_delete: async ({ principal, params, services }) => {
    await services.topics.delete(principal.accountId, params.id);
    return { status: 204 };
  },

  ContactTopics_get: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.topics.contactOptouts(principal.accountId, params.id),
  }),

  ContactTopics_replace: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.topics.replaceContactOptouts(principal.accountId, params.id, body.topic_ids),
  }),
});

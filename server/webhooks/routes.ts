import { handlers } from '../http/operations.ts';
import type { WebhookService } from './service.ts';

export const webhookHandlers = handlers<{ webhooks: WebhookService }>()({
  Webhooks_create: async ({ principal, body, services }) => ({ status: 201, body: await services.webhooks.create(principal.accountId, body) }),
  Webhooks_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.webhooks.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),
  Webhooks_get: async ({ principal, params, services }) => ({ status: 200, body: await services.webhooks.get(principal.accountId, params.id) }),
  Webhooks_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.webhooks.update(principal.accountId, params.id, body),
  }),
  Webhooks_delete: async ({ principal, params, services }) => {
    await services.webhooks.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Webhooks_test: async ({ principal, params, services }) => ({ status: 200, body: await services.webhooks.test(principal.accountId, params.id) }),
  Webhooks_rotateSecret: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.webhooks.rotateSecret(principal.accountId, params.id),
  }),
  Webhooks_deliveries: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.webhooks.deliveries(principal.accountId, params.id, query.status, query.limit ?? 50, query.cursor),
  }),
  Webhooks_retryDelivery: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.webhooks.retryDelivery(principal.accountId, params.id, params.delivery_id),
  }),
  Webhooks_recover: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.webhooks.recover(principal.accountId, params.id, body.since),
  }),
});

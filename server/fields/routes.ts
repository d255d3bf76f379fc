import { handlers } from '../http/operations.ts';
import type { FieldService } from './service.ts';

export const fieldHandlers = handlers<{ fields: FieldService }>()({
  CustomFields_create: async ({ principal, body, services }) => ({ status: 201, body: await services.fields.create(principal.accountId, body) }),
  CustomFields_list: async ({ principal, services }) => ({ status: 200, body: await services.fields.list(principal.accountId) }),
  CustomFields_get: async ({ principal, params, services }) => ({ status: 200, body: await services.fields.get(principal.accountId, params.id) }),
  CustomFields_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.fields.update(principal.accountId, params.id, body),
  }),
  CustomFields_delete: async ({ principal, params, services }) => {
    await services.fields.delete(principal.accountId, params.id);
    return { status: 204 };
  },
});

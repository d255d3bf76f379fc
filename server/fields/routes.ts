import { handlers } from '../http/operations.ts';

export const fieldHandlers = handlers({
  Fields_create: async ({ principal, body, services }) => ({ status: 201, body: await services.fields.create(principal.accountId, body) }),
  Fields_list: async ({ principal, services }) => ({ status: 200, body: await services.fields.list(principal.accountId) }),
  Fields_get: async ({ principal, params, services }) => ({ status: 200, body: await services.fields.get(principal.accountId, params.id) }),
  Fields_update: async ({ principal, params, body, services }) => ({ status: 200, body: await services.fields.update(principal.accountId, params.id, body) }),
  Fields_delete: async ({ principal, params, services }) => {
    await services.fields.delete(principal.accountId, params.id);
    return { status: 204 };
  },
});

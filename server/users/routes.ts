import { handlers } from '../http/operations.ts';
import { requireUser } from '../principal.ts';
import type { UserService } from './service.ts';

export const userHandlers = handlers<{ users: UserService }>()({
  Users_create: async ({ principal, body, services }) => {
    requireUser(principal, ['owner', 'admin']);
    return { status: 201, body: await services.users.create(principal, body) };
  },

  Users_list: async ({ principal, query, services }) => {
    requireUser(principal);
    return { status: 200, body: await services.users.list(principal, query.limit ?? 50, query.cursor) };
  },

  Users_get: async ({ principal, params, services }) => {
    requireUser(principal);
    return { status: 200, body: await services.users.get(principal, params.id) };
  },

  Users_update: async ({ principal, params, body, services }) => {
    requireUser(principal);
    return { status: 200, body: await services.users.update(principal, params.id, body) };
  },

  Users_delete: async ({ principal, params, services }) => {
    requireUser(principal, ['owner', 'admin']);
    await services.users.delete(principal, params.id);
    return { status: 204 };
  },
});

import { handlers } from '../http/operations.ts';
import type { ContactService } from './service.ts';

export const contactHandlers = handlers<{ contacts: ContactService }>()({
  Contacts_create: async ({ principal, body, services }) => ({
    status: 201,
    body: await services.contacts.create(principal.accountId, body),
  }),

  Contacts_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.contacts.list(
      principal.accountId,
      {
        status: query.status,
        tag: query.tag,
        email: query.email,
        q: query.q,
        createdAfter: query.created_after ? new Date(query.created_after) : undefined,
        createdBefore: query.created_before ? new Date(query.created_before) : undefined,
      },
      query.limit ?? 50,
      query.cursor,
    ),
  }),

  Contacts_get: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.contacts.get(principal.accountId, params.id),
  }),

  Contacts_replace: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.contacts.replace(principal.accountId, params.id, body),
  }),

  Contacts_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.contacts.update(principal.accountId, params.id, body),
  }),

  Contacts_delete: async ({ principal, params, services }) => {
    await services.contacts.delete(principal.accountId, params.id);
    return { status: 204 };
  },
});

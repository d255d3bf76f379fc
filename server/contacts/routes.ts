import { handlers } from '../http/operations.ts';
import { filtersOf } from './repository.ts';
import type { ContactBulkService } from './bulk.ts';
import type { ContactService } from './service.ts';

export const contactHandlers = handlers<{ contacts: ContactService; contactBulk: ContactBulkService }>()({
  Contacts_create: async ({ principal, body, services }) => ({
    status: 201,
    body: await services.contacts.create(principal.accountId, body),
  }),

  Contacts_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.contacts.list(principal.accountId, filtersOf(query), query.sort ?? 'created_at', query.limit ?? 50, query.cursor),
  }),

  Contacts_count: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.contacts.count(principal.accountId, filtersOf(query)),
  }),

  Contacts_bulk: async ({ principal, body, services }) => ({
    status: 200,
    body: await services.contactBulk.run(principal.accountId, body),
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

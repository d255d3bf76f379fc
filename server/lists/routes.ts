import { handlers } from '../http/operations.ts';
import type { ListService } from './service.ts';

/** 10,000 addresses of up to 254 characters, with ids beside them, exceed the default body limit. */
export const LIST_MEMBER_JSON_LIMITS = { Lists_addMembers: 4 * 1024 * 1024, Lists_removeMembers: 4 * 1024 * 1024 };

export const listHandlers = handlers<{ lists: ListService }>()({
  Lists_create: async ({ principal, body, services }) => ({ status: 201, body: await services.lists.create(principal.accountId, body) }),

  Lists_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.lists.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),

  Lists_get: async ({ principal, params, services }) => ({ status: 200, body: await services.lists.get(principal.accountId, params.id) }),

  Lists_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.lists.update(principal.accountId, params.id, body),
  }),

  Lists_delete: async ({ principal, params, services }) => {
    await services.lists.delete(principal.accountId, params.id);
    return { status: 204 };
  },

  Lists_members: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.lists.members(principal.accountId, params.id, query.status, query.limit ?? 50, query.cursor),
  }),

  Lists_addMembers: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.lists.addMembers(principal.accountId, params.id, body),
  }),

  Lists_removeMembers: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.lists.removeMembers(principal.accountId, params.id, body),
  }),

  Lists_form: async ({ principal, params, services }) => ({ status: 200, body: await services.lists.form(principal.accountId, params.id) }),

  ContactLists_list: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.lists.contactLists(principal.accountId, params.id, query.limit ?? 50, query.cursor),
  }),

  PublicLists_subscribe: async ({ params, body, services, req, res }) => {
    const { result, thankYouUrl } = await services.lists.publicSubscribe(params.public_id, body, req.ip ?? '');
    // A browser posting the form is sent on to a page (Post/Redirect/Get); a script gets JSON.
    if (req.is('application/x-www-form-urlencoded')) {
      res.location(thankYouUrl);
      return { status: 303 };
    }
    return { status: 202, body: result };
  },
});

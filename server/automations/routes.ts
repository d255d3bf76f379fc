import { handlers } from '../http/operations.ts';
import type { AutomationService } from './service.ts';

/** Up to 10,000 contacts by address (254 characters at most each) and as many ids. */
export const AUTOMATION_JSON_LIMITS = { Automations_enroll: 4 * 1024 * 1024 };

export const automationHandlers = handlers<{ automations: AutomationService }>()({
  Automations_create: async ({ principal, body, services }) => ({ status: 201, body: await services.automations.create(principal.accountId, body) }),
  Automations_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.automations.list(principal.accountId, query.status, query.limit ?? 50, query.cursor),
  }),
  Automations_get: async ({ principal, params, services }) => ({ status: 200, body: await services.automations.get(principal.accountId, params.id) }),
  Automations_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.automations.update(principal.accountId, params.id, body),
  }),
  Automations_delete: async ({ principal, params, services }) => {
    await services.automations.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Automations_webhookSecret: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.automations.webhookSecret(principal.accountId, params.id),
  }),
  Automations_activate: async ({ principal, params, services }) => ({ status: 200, body: await services.automations.activate(principal.accountId, params.id) }),
  Automations_pause: async ({ principal, params, services }) => ({ status: 200, body: await services.automations.pause(principal.accountId, params.id) }),
  Automations_archive: async ({ principal, params, services }) => ({ status: 200, body: await services.automations.archive(principal.accountId, params.id) }),
  Automations_enroll: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.automations.enroll(principal.accountId, params.id, body),
  }),
  Automations_listEnrollments: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.automations.listEnrollments(
      principal.accountId,
      { automationId: params.id, status: query.status, contactId: query.contact_id },
      query.limit ?? 50,
      query.cursor,
    ),
  }),
  Automations_cancelEnrollment: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.automations.cancelEnrollment(principal.accountId, params.id, params.enrollment_id),
  }),
  ContactAutomations_list: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.automations.listEnrollments(principal.accountId, { contactId: params.id }, query.limit ?? 50, query.cursor),
  }),
  ContactEvents_create: async ({ principal, params, body, services }) => ({
    status: 202,
    body: await services.automations.postEvent(principal.accountId, params.id, body),
  }),
  Analytics_automation: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.automations.analytics(principal.accountId, params.id),
  }),
});

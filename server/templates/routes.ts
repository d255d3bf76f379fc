import { handlers } from '../http/operations.ts';
import { templateJson, versionJson, type TemplateService } from './service.ts';

export const templateHandlers = handlers<{ templates: TemplateService }>()({
  Templates_create: async ({ principal, body, services }) => ({
    status: 201,
    body: templateJson(await services.templates.create(principal.accountId, body)),
  }),
  Templates_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.templates.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),
  Templates_get: async ({ principal, params, services }) => ({
    status: 200,
    body: templateJson(await services.templates.get(principal.accountId, params.id)),
  }),
  Templates_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: templateJson(await services.templates.update(principal.accountId, params.id, body)),
  }),
  Templates_delete: async ({ principal, params, services }) => {
    await services.templates.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Templates_publish: async ({ principal, params, services }) => ({
    status: 201,
    body: versionJson(await services.templates.publish(principal.accountId, params.id)),
  }),
  Templates_versions: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.templates.versions(principal.accountId, params.id, query.limit ?? 50, query.cursor),
  }),
  Templates_version: async ({ principal, params, services }) => ({
    status: 200,
    body: versionJson(await services.templates.version(principal.accountId, params.id, params.version)),
  }),
  Templates_render: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.templates.render(principal.accountId, params.id, body),
  }),
  Templates_test: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.templates.test(principal.accountId, params.id, body),
  }),
});

import { handlers } from '../http/operations.ts';
import type { ExportService } from './service.ts';
import type { PersonalDataService } from './personal-data.ts';

export const exportHandlers = handlers<{ exports: ExportService; personalData: PersonalDataService }>()({
  ContactExports_create: async ({ principal, body, services }) => ({ status: 202, body: await services.exports.create(principal.accountId, body) }),

  ContactExports_get: async ({ principal, params, services }) => ({ status: 200, body: await services.exports.get(principal.accountId, params.id) }),

  ContactExports_download: async ({ principal, params, services }) => ({
    status: 200,
    stream: { type: 'text/csv; charset=utf-8', filename: `${params.id}.csv`, chunks: await services.exports.download(principal.accountId, params.id) },
  }),

  Contacts_export: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.personalData.access(principal.accountId, params.id),
  }),

  Contacts_erase: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.personalData.erase(principal.accountId, params.id),
  }),
});

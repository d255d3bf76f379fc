import { Readable } from 'node:stream';
import { handlers } from '../http/operations.ts';
import { streamedBody } from '../http/streamed-body.ts';
import type { SuppressionService } from './service.ts';

export const suppressionHandlers = handlers<{ suppressions: SuppressionService }>()({
  Suppressions_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.suppressions.list(principal.accountId, { reason: query.reason, email: query.email }, query.limit ?? 50, query.cursor),
  }),

  Suppressions_create: async ({ principal, body, services }) => ({
    status: 200,
    body: await services.suppressions.add(principal.accountId, body.emails, body.reason ?? 'manual', body.detail ?? null),
  }),

  Suppressions_importCsv: async ({ principal, body, query, services, req }) => {
    if (req.is('application/json')) {
      const csv = Readable.from([Buffer.from(body.csv)]);
      return { status: 200, body: await services.suppressions.importCsv(principal.accountId, csv, body.reason ?? 'manual', body.detail ?? null) };
    }
    return {
      status: 200,
      body: await services.suppressions.importCsv(principal.accountId, streamedBody(req), query.reason ?? 'manual', query.detail ?? null),
    };
  },

  Suppressions_get: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.suppressions.get(principal.accountId, params.id),
  }),

  Suppressions_delete: async ({ principal, params, query, services }) => {
    await services.suppressions.remove(principal.accountId, params.id, query.reason);
    return { status: 204 };
  },
});

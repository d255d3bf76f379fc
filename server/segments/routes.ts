import { handlers } from '../http/operations.ts';
import type { SegmentService } from './service.ts';

export const segmentHandlers = handlers<{ segments: SegmentService }>()({
  Segments_create: async ({ principal, body, services }) => ({ status: 201, body: await services.segments.create(principal.accountId, body) }),
  Segments_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.segments.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),
  Segments_preview: async ({ principal, body, services }) => ({ status: 200, body: await services.segments.preview(principal.accountId, body) }),
  Segments_get: async ({ principal, params, services }) => ({ status: 200, body: await services.segments.get(principal.accountId, params.id) }),
  Segments_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.segments.update(principal.accountId, params.id, body),
  }),
  Segments_delete: async ({ principal, params, services }) => {
    await services.segments.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Segments_contacts: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.segments.contacts(principal.accountId, params.id, query.limit ?? 50, query.cursor),
  }),
});

import { handlers } from '../http/operations.ts';
import { streamedBody } from '../http/streamed-body.ts';
import { multipartUpload, parseMapping, parseTags } from './upload.ts';
import type { ImportService } from './service.ts';

export const importHandlers = handlers<{ imports: ImportService }>()({
  ContactImports_create: async ({ principal, body, query, services, req }) => {
    const type = req.is(['application/json', 'text/csv', 'multipart/form-data']);
    if (type === 'application/json') {
      const { contacts, mode, tags, list_ids: listIds } = body;
      const options = { mode: mode ?? 'upsert', tags: tags ?? [], listIds: [...new Set(listIds ?? [])] };
      return { status: 202, body: await services.imports.importJson(principal.accountId, contacts, options) };
    }
    if (type === 'text/csv') {
      const options = {
        mode: query.mode ?? 'upsert',
        tags: parseTags(query.tags),
        mapping: parseMapping(query.mapping, 'query.mapping'),
        listIds: parseTags(query.list_ids),
      };
      return { status: 202, body: await services.imports.importUpload(principal.accountId, streamedBody(req), () => options) };
    }
    const upload = await multipartUpload(req.headers, streamedBody(req), services.imports.maxBytes, query);
    return { status: 202, body: await services.imports.importUpload(principal.accountId, upload.file, upload.options) };
  },

  ContactImports_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.imports.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),

  ContactImports_get: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.imports.get(principal.accountId, params.id),
  }),

  ContactImports_errors: async ({ principal, params, services }) => {
    const lines = services.imports.errorsCsv(principal.accountId, params.id);
    // Reading the header line first makes an unknown import a 404 before any byte is sent.
    const header = await lines.next();
    return {
      status: 200,
      stream: {
        type: 'text/csv; charset=utf-8',
        filename: `${params.id}-errors.csv`,
        chunks: (async function* () {
          if (!header.done) yield header.value;
          yield* lines;
        })(),
      },
    };
  },
});

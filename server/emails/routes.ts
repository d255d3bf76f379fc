import { handlers } from '../http/operations.ts';
import type { EmailService } from './service.ts';

/** Attachments make larger bodies: 10 MB decoded is 13.4 MB of base64, plus the JSON around it. */
export const EMAIL_JSON_LIMITS = { Emails_send: 15 * 1024 * 1024, Emails_batch: 20 * 1024 * 1024 };

export const emailHandlers = handlers<{ emails: EmailService }>()({
  Emails_send: async ({ principal, body, services }) => ({
    status: 202,
    body: { data: await services.emails.send(principal.accountId, body) },
  }),
  Emails_batch: async ({ principal, body, services }) => ({
    status: 202,
    body: { data: await services.emails.batch(principal.accountId, body.emails) },
  }),
  Emails_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.emails.list(
      principal.accountId,
      {
        status: query.status,
        to: query.to,
        tag: query.tag,
        createdAfter: query.created_after ? new Date(query.created_after) : undefined,
        createdBefore: query.created_before ? new Date(query.created_before) : undefined,
      },
      query.limit ?? 50,
      query.cursor,
    ),
  }),
  Emails_get: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.emails.get(principal.accountId, params.id),
  }),
  Emails_cancel: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.emails.cancel(principal.accountId, params.id),
  }),
});

import { handlers } from '../http/operations.ts';
import { Problem, validationFailed } from '../contract/problem.ts';
import type { FeedbackService } from './feedback.ts';
import type { TrackingService } from './service.ts';

const pageArgs = (query: { limit?: number; cursor?: string }) => [query.limit ?? 50, query.cursor] as const;

export const trackingHandlers = handlers<{ feedback: FeedbackService; tracking: TrackingService }>()({
  Tracking_opens: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.tracking.opens(principal.accountId, query, ...pageArgs(query)),
  }),
  Tracking_clicks: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.tracking.clicks(principal.accountId, query, ...pageArgs(query)),
  }),
  Tracking_bounces: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.tracking.bounces(principal.accountId, query, ...pageArgs(query)),
  }),
  Tracking_recordBounce: async ({ principal, body, services }) => {
    if (!body.message_id && !body.email) throw validationFailed([{ pointer: '/message_id', detail: 'give message_id or email' }]);
    const record = await services.feedback.recordBounce({
      accountId: principal.accountId,
      messageId: body.message_id ?? null,
      email: body.email ?? null,
      type: body.type,
      reason: body.reason ?? null,
      diagnosticCode: body.diagnostic_code ?? null,
      occurredAt: body.occurred_at ? new Date(body.occurred_at) : new Date(),
      source: 'api',
    });
    if (!record) throw new Problem(404, 'not_found', body.message_id ? 'No such message.' : 'No message or contact with that email.');
    return {
      status: 201,
      body: {
        id: record.id,
        campaign_id: record.campaign_id,
        contact_id: record.contact_id,
        email: record.email,
        occurred_at: record.occurred_at.toISOString(),
        type: record.type,
        reason: record.reason,
        diagnostic_code: record.diagnostic_code,
      },
    };
  },
  Contacts_activity: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.tracking.contactActivity(principal.accountId, params.id, ...pageArgs(query)),
  }),
});

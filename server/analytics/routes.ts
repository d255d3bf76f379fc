import { handlers } from '../http/operations.ts';
import type { AnalyticsService } from './service.ts';

export const analyticsHandlers = handlers<{ analytics: AnalyticsService }>()({
  Analytics_overview: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.analytics.overview(principal.accountId, query.since, query.until),
  }),
  Analytics_campaign: async ({ principal, params, services }) => ({
    status: 200,
    body: await services.analytics.campaign(principal.accountId, params.id),
  }),
});

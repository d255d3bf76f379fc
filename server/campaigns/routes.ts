import { handlers } from '../http/operations.ts';
import { campaignJson } from './json.ts';
import type { CampaignService } from './service.ts';

export const campaignHandlers = handlers<{ campaigns: CampaignService }>()({
  Campaigns_create: async ({ principal, body, services }) => ({
    status: 201,
    body: campaignJson(await services.campaigns.create(principal.accountId, body)),
  }),
  Campaigns_list: async ({ principal, query, services }) => {
    const page = await services.campaigns.list(principal.accountId, query.status, query.order ?? 'oldest', query.limit ?? 50, query.cursor);
    return { status: 200, body: { ...page, data: page.data.map(campaignJson) } };
  },
  Campaigns_get: async ({ principal, params, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.get(principal.accountId, params.id)),
  }),
  Campaigns_update: async ({ principal, params, body, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.update(principal.accountId, params.id, body)),
  }),
  Campaigns_delete: async ({ principal, params, services }) => {
    await services.campaigns.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Campaigns_send: async ({ principal, params, body, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.send(principal.accountId, params.id, body?.scheduled_at)),
  }),
  Campaigns_schedule: async ({ principal, params, body, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.schedule(principal.accountId, params.id, body)),
  }),
  Campaigns_unschedule: async ({ principal, params, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.unschedule(principal.accountId, params.id)),
  }),
  Campaigns_winner: async ({ principal, params, body, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.winner(principal.accountId, params.id, body.variant)),
  }),
  Campaigns_pause: async ({ principal, params, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.pause(principal.accountId, params.id)),
  }),
  Campaigns_resume: async ({ principal, params, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.resume(principal.accountId, params.id)),
  }),
  Campaigns_cancel: async ({ principal, params, services }) => ({
    status: 200,
    body: campaignJson(await services.campaigns.cancel(principal.accountId, params.id)),
  }),
  Campaigns_test: async ({ principal, params, body, services }) => ({
    status: 200,
    body: await services.campaigns.test(principal.accountId, params.id, body.emails),
  }),
  Campaigns_duplicate: async ({ principal, params, services }) => ({
    status: 201,
    body: campaignJson(await services.campaigns.duplicate(principal.accountId, params.id)),
  }),
  Campaigns_audience: async ({ principal, params, services }) => ({
    status: 200,
    body: { recipients: await services.campaigns.audienceCount(principal.accountId, params.id) },
  }),
  Campaigns_messages: async ({ principal, params, query, services }) => ({
    status: 200,
    body: await services.campaigns.messages(principal.accountId, params.id, query.status, query.limit ?? 50, query.cursor),
  }),
});

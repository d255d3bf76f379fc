import { handlers } from '../http/operations.ts';
import type { EventService } from './service.ts';

export const eventHandlers = handlers<{ events: EventService }>()({
  Events_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.events.list(principal.accountId, query.type, query.since, query.limit ?? 50, query.cursor),
  }),
  Events_types: ({ services }) => ({ status: 200, body: services.events.types() }),
});

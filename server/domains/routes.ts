import { handlers } from '../http/operations.ts';
import type { DomainService } from './service.ts';

export const domainHandlers = handlers<{ domains: DomainService }>()({
  Domains_create: async ({ principal, body, services }) => ({ status: 201, body: await services.domains.create(principal.accountId, body) }),
  Domains_list: async ({ principal, query, services }) => ({
    status: 200,
    body: await services.domains.list(principal.accountId, query.limit ?? 50, query.cursor),
  }),
  Domains_get: async ({ principal, params, services }) => ({ status: 200, body: await services.domains.get(principal.accountId, params.id) }),
  Domains_delete: async ({ principal, params, services }) => {
    await services.domains.delete(principal.accountId, params.id);
    return { status: 204 };
  },
  Domains_verify: async ({ principal, params, services }) => ({ status: 200, body: await services.domains.verify(principal.accountId, params.id) }),
  Domains_rotateDkim: async ({ principal, params, services }) => ({ status: 200, body: await services.domains.rotateDkim(principal.accountId, params.id) }),
  Domains_retireDkim: async ({ principal, params, services }) => ({ status: 200, body: await services.domains.retireDkim(principal.accountId, params.id) }),
});

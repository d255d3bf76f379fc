import { requireUser } from '../principal.ts';
import { handlers } from '../http/operations.ts';
import type { AuthService } from '../auth/service.ts';

/** The caller's account: any credential of it reads it; owners and admins change it. */
export const accountHandlers = handlers<{ auth: AuthService }>()({
  Accounts_get: async ({ principal, services }) => ({ status: 200, body: await services.auth.account(principal) }),

  Accounts_update: async ({ principal, body, services }) => {
    requireUser(principal, ['owner', 'admin']);
    return { status: 200, body: await services.auth.updateAccount(principal, body) };
  },
});

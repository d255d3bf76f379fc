import type { components } from '../../generated/openapi.d.ts';
import { handlers } from '../http/operations.ts';
import type { AccountRow, UserRow } from './entities.ts';
import type { IssuedSession } from './service.ts';

export const userJson = (u: UserRow): components['schemas']['User'] => ({
  id: u.id,
  email: u.email,
  name: u.name,
  role: u.role,
  account_id: u.accountId,
  created_at: u.createdAt.toISOString(),
});

const accountJson = (a: AccountRow): components['schemas']['Account'] => ({ id: a.id, name: a.name, created_at: a.createdAt.toISOString() });

const sessionJson = (s: IssuedSession) => ({
  success: true as const,
  token: s.token,
  refresh_token: s.refreshToken,
  expires_in: s.expiresIn,
  user: userJson(s.user),
});

export const authHandlers = handlers({
  Auth_login: async ({ body, services, req }) => ({
    status: 200,
    body: sessionJson(await services.auth.login(body.email, body.password, req.ip ?? '')),
  }),

  Auth_register: async ({ body, services, req }) => ({
    status: 201,
    body: sessionJson(
      await services.auth.register(body, req.ip ?? ''),
    ),
  }),

  Auth_refresh: async ({ body, services }) => ({
    status: 200,
    body: sessionJson(await services.auth.refresh(body.refresh_token)),
  }),

  Auth_logout: async ({ principal, services }) => {
    await services.auth.logout(principal);
    return { status: 204 };
  },

  Auth_me: async ({ principal, services }) => {
    const { user, account } = await services.auth.me(principal);
    return {
      status: 200,
      body: { user: user && userJson(user), account: accountJson(account), auth: principal.via, scopes: principal.scopes },
    };
  },
});

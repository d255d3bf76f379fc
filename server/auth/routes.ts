import { handlers } from '../http/operations.ts';

export const authHandlers = handlers({
  Auth_login: async ({ body, services, req }) => ({
    status: 200,
    body: await services.auth.login(body.email, body.password, req.ip ?? ''),
  }),

  Auth_register: async ({ body, services, req }) => ({
    status: 201,
    body: await services.auth.register(body, req.ip ?? ''),
  }),

  Auth_refresh: async ({ body, services }) => ({
    status: 200,
    body: await services.auth.refresh(body.refresh_token),
  }),

  Auth_logout: async ({ principal, services }) => {
    await services.auth.logout(principal);
    return { status: 204 };
  },

  Auth_me: async ({ principal, services }) => ({ status: 200, body: await services.auth.me(principal) }),
});

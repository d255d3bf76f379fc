import { handlers } from '../http/operations.ts';
import { answerWithCookie, clearRefreshCookie, refreshCookie } from './refresh-cookie.ts';
import { invalidSession, type AuthService } from './service.ts';

export const authHandlers = handlers<{ auth: AuthService }>()({
  Auth_login: async ({ body, services, req, res }) => {
    const session = await services.auth.login(body.email, body.password, req.ip ?? '');
    return { status: 200, body: body.refresh_cookie ? answerWithCookie(req, res, session) : session };
  },

  Auth_register: async ({ body, services, req }) => ({
    status: 201,
    body: await services.auth.register(body, req.ip ?? ''),
  }),

  Auth_refresh: async ({ body, services, req, res }) => {
    const token = body.refresh_token ?? (body.refresh_cookie ? refreshCookie(req) : undefined);
    if (!token) throw invalidSession();
    const session = await services.auth.refresh(token);
    return { status: 200, body: body.refresh_cookie ? answerWithCookie(req, res, session) : session };
  },

  Auth_logout: async ({ body, principal, services, req, res }) => {
    await services.auth.logout(principal, body?.everywhere ?? false);
    clearRefreshCookie(req, res);
    return { status: 204 };
  },

  Auth_me: async ({ principal, services }) => ({ status: 200, body: await services.auth.me(principal) }),

  Auth_changePassword: async ({ body, principal, services }) => {
    await services.auth.changePassword(principal, body.current_password, body.new_password);
    return { status: 204 };
  },
});

/**
 * The signed-in session. The access token lives in this module only (never in storage); the
 * refresh token is an HttpOnly cookie the page cannot read, exchanged through `Auth_refresh`
 * with `refresh_cookie: true`. Tabs take turns refreshing (Web Locks): the refresh token is
 * single-use, and two tabs spending the same one would end the session.
 */
import { AuthenticationError, Sendline, Transport, type components } from '@sendline/sdk';

export type User = components['schemas']['User'];
type Session = components['schemas']['Session'];

export interface SignedIn {
  api: Sendline;
  token: string;
  user: User;
}

const baseUrl = location.origin;
const anonymous = new Transport({ baseUrl, anonymous: true, maxRetries: 1 });
/** Refreshed this long before the access token expires. */
const EARLY_MS = 60_000;

let current: SignedIn | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<() => void>();

export const session = {
  get: (): SignedIn | null => current,
  subscribe: (listener: () => void): (() => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

function adopt(answer: Session | null): void {
  clearTimeout(timer);
  current = answer && { api: new Sendline({ apiKey: answer.token, baseUrl, maxRetries: 1 }), token: answer.token, user: answer.user };
  if (answer) timer = setTimeout(() => void refresh(), Math.max(5_000, answer.expires_in * 1000 - EARLY_MS));
  for (const listener of listeners) listener();
}

export async function login(email: string, password: string): Promise<void> {
  const { data } = await anonymous.request('Auth_login', { body: { email, password, refresh_cookie: true } });
  adopt(data);
}

/**
 * Whether the browser holds a session to refresh: `login` sets a marker cookie beside the
 * HttpOnly refresh cookie (and `logout` clears both). Without it, asking would only earn a 401,
 * which the browser logs as a failed request.
 */
export const hasSessionCookie = (): boolean => document.cookie.split(';').some((part) => part.trim().startsWith('sendline_session='));

/** Drops the marker of a session the server no longer knows (the refresh cookie is the server's to clear). */
const forgetSessionCookie = () => void (document.cookie = 'sendline_session=; Path=/app; Max-Age=0; SameSite=Strict');

let refreshing: Promise<boolean> | null = null;

/** A new access token from the refresh cookie; false (signed out) when the session has ended. */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const exchange = async () => {
      try {
        const { data } = await anonymous.request('Auth_refresh', { body: { refresh_cookie: true } });
        adopt(data);
        return true;
      } catch (error) {
        if (!(error instanceof AuthenticationError)) throw error;
        forgetSessionCookie();
        adopt(null);
        return false;
      }
    };
    try {
      return await (navigator.locks ? navigator.locks.request('sendline-refresh', exchange) : exchange());
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

export async function logout(everywhere = false): Promise<void> {
  try {
    await current?.api.auth.logout({ everywhere });
  } finally {
    adopt(null);
  }
}

/** The signed-in client (pages render only while signed in). */
export function api(): Sendline {
  if (!current) throw new AuthenticationError('Signed out', { status: 401 });
  return current.api;
}

import type { components } from '../generated/openapi.d.ts';
import { forbidden } from './contract/problem.ts';
import type { WindowCount } from './rate-limits/limiter.ts';

export type Scope = components['schemas']['ApiKeyScope'];
type UserRole = components['schemas']['UserRole'];

/** Who is calling, established once per request by the authentication middleware. */
export interface Principal {
  accountId: string;
  via: 'session' | 'api_key';
  scopes: Scope[];
  /** Set for sessions. */
  userId: string | null;
  role: UserRole | null;
  sessionId: string | null;
  /** Set for API keys. */
  keyId: string | null;
  /** The key's own limit, or the server default for sessions. */
  rateLimitPerMinute: number;
  /** This request's place in its rate-limit window, when authentication already counted it. */
  counted: WindowCount | null;
}

/** Reads need the `read` scope; everything else needs `write`. */
export function requireScope(principal: Principal, method: string): void {
  const needed = method === 'GET' || method === 'HEAD' ? 'read' : 'write';
  if (!principal.scopes.includes(needed)) {
    throw forbidden('insufficient_scope', `This API key lacks the "${needed}" scope.`);
  }
}

/** Account administration (users, API keys) takes a logged-in user with one of `roles`. */
export function requireUser(principal: Principal, roles: UserRole[] = ['owner', 'admin', 'member']): void {
  if (principal.via !== 'session') throw forbidden('session_required', 'This operation takes a logged-in user, not an API key.');
  if (!roles.includes(principal.role!)) throw forbidden('insufficient_role', `This operation takes the role ${roles.join(' or ')}.`);
}

import type { components } from '../../generated/openapi.d.ts';
import type { WindowCount } from '../rate-limits/limiter.ts';
import type { UserRole } from './entities.ts';

export type Scope = components['schemas']['ApiKeyScope'];

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

import type { components } from '../../generated/openapi.d.ts';
import { Problem, forbidden } from '../contract/problem.ts';
import type { AuthService } from './service.ts';
import type { Principal } from '../principal.ts';
import type { WindowCount } from '../rate-limits/limiter.ts';
import type { CachedKey } from './credential-cache.ts';
import { looksLikeApiKey } from './tokens.ts';

type Credential = { kind: 'jwt' | 'api_key'; value: string };

/** What authentication reads of a request: headers and the client address (Express or a raw upgrade). */
export interface CredentialSource {
  get(name: string): string | undefined;
  ip?: string;
}

/**
 * `X-API-Key: <key>`, or `Authorization: Bearer <jwt or key>`. A request with both is refused
 * rather than resolved by one of them: a valid key must not vouch for a credential that fails.
 * A header with nothing in it is no credential: openapi-generator's Ruby client sends
 * `Authorization: Bearer ` with no token beside an API key.
 */
function credentialOf(req: CredentialSource): Credential | null {
  const apiKey = req.get('x-api-key')?.trim();
  const authorization = req.get('authorization')?.trim();
  if (apiKey && authorization && !/^Bearer$/i.test(authorization)) {
    throw new Problem(400, 'ambiguous_credentials', 'Send one credential: either X-API-Key or Authorization, not both.');
  }
  if (apiKey) return { kind: 'api_key', value: apiKey };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return null;
  return { kind: looksLikeApiKey(match[1]) ? 'api_key' : 'jwt', value: match[1] };
}

const unauthorized = (code: components['schemas']['UnauthorizedResponse']['code'], detail: string) =>
  new Problem(401, code, detail, { headers: { 'WWW-Authenticate': 'Bearer realm="sendline"' } });

/** What checking a presented API key answers (api-keys/ checks them). */
export type KeyCheck =
  | { ok: true; key: CachedKey; counted: WindowCount }
  | { ok: false; reason: 'unknown' | 'expired' | 'ip_not_allowed' }
  /** The client's address presented too many unknown or expired keys in this window. */
  | { ok: false; reason: 'throttled'; resetIn: number };

/** What authentication needs of the services: sessions, and API keys (checked by api-keys/). */
export interface Authenticators {
  auth: Pick<AuthService, 'authenticateToken'>;
  apiKeys: {
    verify(secret: string, ip: string): Promise<KeyCheck>;
    /** A key's own limit, or the default (also what sessions get). */
    rateLimitOf(key: Pick<CachedKey, 'rateLimitPerMinute'> | null): number;
  };
}

export async function authenticate(req: CredentialSource, services: Authenticators): Promise<Principal> {
  const credential = credentialOf(req);
  if (!credential) throw unauthorized('authentication_required', 'Send a JWT or an API key.');
  if (credential.kind === 'api_key') {
    const check = await services.apiKeys.verify(credential.value, req.ip ?? '');
    if (!check.ok && check.reason === 'throttled') {
      throw new Problem(429, 'too_many_invalid_api_keys', `Too many unknown or expired API keys from this address; retry in ${check.resetIn} s.`, {
        headers: { 'Retry-After': String(check.resetIn) },
      });
    }
    if (!check.ok && check.reason === 'ip_not_allowed') {
      throw forbidden('ip_not_allowed', 'This API key may not be used from this address.');
    }
    if (!check.ok) throw unauthorized('invalid_api_key', 'The API key is unknown, revoked or expired.');
    return {
      accountId: check.key.accountId,
      via: 'api_key',
      scopes: check.key.scopes,
      userId: null,
      role: null,
      sessionId: null,
      keyId: check.key.id,
      rateLimitPerMinute: services.apiKeys.rateLimitOf(check.key),
      counted: check.counted,
    };
  }
  const session = await services.auth.authenticateToken(credential.value);
  if (!session) throw unauthorized('invalid_token', 'The token is invalid or expired, or its session has ended.');
  return {
    accountId: session.session.accountId,
    via: 'session',
    scopes: ['read', 'write'],
    userId: session.session.userId,
    role: session.session.role,
    sessionId: session.sessionId,
    keyId: null,
    rateLimitPerMinute: services.apiKeys.rateLimitOf(null),
    counted: null,
  };
}

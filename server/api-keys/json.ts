import type { components } from '../../generated/openapi.d.ts';
import type { ApiKeyRow } from './entities.ts';

/** A key as the API shows it, with the limit that applies to it. */
export const apiKeyJson = (k: ApiKeyRow, rateLimit: number): components['schemas']['ApiKey'] => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  allowed_ips: k.allowedIps,
  rate_limit_per_minute: rateLimit,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
});

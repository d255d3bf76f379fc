import type { components } from '../../generated/openapi.d.ts';
import { newId, randomToken } from '../db/ids.ts';
import { sha256 } from '../auth/tokens.ts';
import { notFound, validationFailed, type FieldError } from '../contract/problem.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import type { Scope } from '../principal.ts';
import type { ApiKeyRow } from './entities.ts';
import { apiKeyJson } from './json.ts';
import { RATE_LIMIT_WINDOW_SECONDS, currentWindow, type RateLimitStore } from '../rate-limits/limiter.ts';
import type { ApiKeyRepository, KeyFound } from './repository.ts';
import { compileAllowList, ipAllowed, parseCidr } from '../net/cidr.ts';
import { badKeyBucket, type Access } from '../auth/access.ts';
import type { CachedKey } from '../auth/credential-cache.ts';
import type { KeyCheck } from '../auth/middleware.ts';
import type { KeyUsage } from './usage.ts';

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

const KEY_PREFIX = 'sl_live_';
const VISIBLE_CHARS = KEY_PREFIX.length + 6;

function checkCidrs(cidrs: string[] | undefined): void {
  const errors: FieldError[] = [];
  cidrs?.forEach((text, i) => {
    if (!parseCidr(text)) errors.push({ pointer: `/allowed_ips/${i}`, detail: `"${text}" is not an IPv4 or IPv6 address or CIDR block` });
  });
  if (errors.length) throw validationFailed(errors);
}

function normaliseScopes(scopes: Scope[] | undefined): Scope[] {
  // Writing implies reading.
  return scopes?.includes('write') || !scopes ? ['read', 'write'] : ['read'];
}

export class ApiKeyService {
  private readonly repo: ApiKeyRepository;
  private readonly limits: RateLimitStore;
  private readonly settings: { defaultRateLimit: number; invalidKeysPerMinute: number };

  private readonly access: Access;
  private readonly keyUsage: KeyUsage;

  constructor(
    repo: ApiKeyRepository,
    limits: RateLimitStore,
    access: Access,
    keyUsage: KeyUsage,
    settings: { defaultRateLimit: number; invalidKeysPerMinute: number },
  ) {
    this.repo = repo;
    this.limits = limits;
    this.access = access;
    this.keyUsage = keyUsage;
    this.settings = settings;
  }

  /** A key's own limit, or the default (also what sessions get). */
  rateLimitOf(key: Pick<ApiKeyRow, 'rateLimitPerMinute'> | null): number {
    return key?.rateLimitPerMinute ?? this.settings.defaultRateLimit;
  }

  async create(accountId: string, input: components['schemas']['ApiKeyCreate']): Promise<components['schemas']['ApiKeyWithSecret']> {
    checkCidrs(input.allowed_ips);
    if (input.expires_at && new Date(input.expires_at) <= new Date()) {
      throw validationFailed([{ pointer: '/expires_at', detail: 'must be in the future' }]);
    }
    const secret = KEY_PREFIX + randomToken(40);
    const key = this.repo.create({
      id: newId('key'),
      accountId,
      name: input.name,
      prefix: secret.slice(0, VISIBLE_CHARS),
      keyHash: sha256(secret),
      scopes: normaliseScopes(input.scopes),
      allowedIps: input.allowed_ips ?? [],
      rateLimitPerMinute: input.rate_limit_per_minute ?? null,
      expiresAt: input.expires_at ? new Date(input.expires_at) : null,
    });
    await this.repo.flush();
    return { ...this.json(key), key: secret };
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<components['schemas']['ApiKeyPage']> {
    const rows = await this.repo.page(accountId, decodeCursor(cursor), limit);
    return toPage(
      rows,
      limit,
      (k) => ({ at: k.createdAt, id: k.id }),
      (k) => this.json(k),
    );
  }

  async get(accountId: string, id: string): Promise<components['schemas']['ApiKey']> {
    return this.json(await this.load(accountId, id));
  }

  private json(key: ApiKeyRow): components['schemas']['ApiKey'] {
    return apiKeyJson(key, this.rateLimitOf(key));
  }

  private async load(accountId: string, id: string): Promise<ApiKeyRow> {
    const key = await this.repo.byId(accountId, id);
    if (!key) throw notFound('API key');
    return key;
  }

  async update(accountId: string, id: string, input: components['schemas']['ApiKeyUpdate']): Promise<components['schemas']['ApiKey']> {
    const key = await this.load(accountId, id);
    checkCidrs(input.allowed_ips);
    if (input.name !== undefined) key.name = input.name;
    if (input.scopes !== undefined) key.scopes = normaliseScopes(input.scopes);
    const restricted = input.allowed_ips !== undefined && !sameList(key.allowedIps, input.allowed_ips);
    if (input.allowed_ips !== undefined) key.allowedIps = input.allowed_ips;
    if (input.rate_limit_per_minute !== undefined) key.rateLimitPerMinute = input.rate_limit_per_minute;
    await this.repo.flush();
    // Scopes and limits changed elsewhere reach every process's cache this way; a changed allow-list has its clients checked again.
    await this.repo.announceChanged(id, restricted);
    this.access.credentials.evict(`key:${id}`);
    return this.json(key);
  }

  async revoke(accountId: string, id: string): Promise<void> {
    this.repo.remove(await this.load(accountId, id));
    await this.repo.flush();
    await this.repo.announceRevoked(id);
    this.access.credentials.evict(`key:${id}`);
  }

  /**
   * Finds the key behind a presented secret (in memory once looked up), counts the request
   * against its rate limit, and checks its expiry and IP allow-list. An address that presents too
   * many unknown or expired keys is refused without a look-up until the window ends.
   */
  async verify(secret: string, ip: string): Promise<KeyCheck> {
    const { credentials, counters } = this.access;
    const window = currentWindow(RATE_LIMIT_WINDOW_SECONDS);
    const failures = { bucket: badKeyBucket(ip), windowStart: window.start, limit: this.settings.invalidKeysPerMinute };
    if (counters.isOver(failures.bucket)) return { ok: false, reason: 'throttled', resetIn: window.resetIn };
    const hash = sha256(secret);
    let key = credentials.key(hash);
    if (!key) {
      const generation = credentials.generation();
      const found = await this.repo.lookUp(hash, failures);
      if (found === 'throttled') {
        counters.markOver(failures.bucket);
        return { ok: false, reason: 'throttled', resetIn: window.resetIn };
      }
      if (found) {
        key = cachedKey(found);
        credentials.rememberKey(hash, key, generation);
      }
    }
    const expired = key !== undefined && key.expiresAt !== null && key.expiresAt <= new Date();
    if (!key || expired) {
      const { count, resetIn } = await this.limits.hit(failures.bucket, RATE_LIMIT_WINDOW_SECONDS);
      if (count >= failures.limit) counters.markOver(failures.bucket);
      if (count > failures.limit) return { ok: false, reason: 'throttled', resetIn };
      return { ok: false, reason: expired ? 'expired' : 'unknown' };
    }
    if (!ipAllowed(key.allowList, ip)) return { ok: false, reason: 'ip_not_allowed' };
    this.keyUsage.used(key.id);
    return { ok: true, key, counted: await counters.hit(`key:${key.id}`) };
  }
}

function cachedKey(found: KeyFound): CachedKey {
  return {
    id: found.id,
    accountId: found.account_id,
    scopes: found.scopes,
    allowList: compileAllowList(found.allowed_ips),
    rateLimitPerMinute: found.rate_limit_per_minute,
    expiresAt: found.expires_at,
  };
}

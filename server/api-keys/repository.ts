import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../contract/pagination.ts';
import { afterCursor, createdPageOptions } from '../db/keyset.ts';
import { sql, type Selectable } from 'kysely';
import { sqlOf, type Database } from '../db/kysely.ts';
import { announceRevoked } from '../auth/revocations.ts';
import { ApiKey, type ApiKeyRow } from './entities.ts';

/** The columns a request needs of its key. */
export type KeyFound = Pick<Selectable<Database['api_keys']>, 'id' | 'account_id' | 'scopes' | 'allowed_ips' | 'rate_limit_per_minute' | 'expires_at'>;

export class ApiKeyRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * A key by the hash of its secret, unless the client's address presented `failures.limit`
   * unknown or expired keys in this window already. One round trip, made only when the key is
   * not cached; the key is marked used (`KeyUsage`) only once a request is accepted with it.
   */
  async lookUp(keyHash: string, failures: { bucket: string; windowStart: number; limit: number }): Promise<KeyFound | 'throttled' | null> {
    const { rows } = await sql<KeyFound & { failed: number }>`
      with failed as (
        select coalesce((select count from rate_limit_counters where bucket = ${failures.bucket} and window_start = to_timestamp(${failures.windowStart})), 0) as n
      ),
      k as (
        select id, account_id, scopes, allowed_ips, rate_limit_per_minute, expires_at from api_keys
        where key_hash = ${keyHash} and (select n from failed) < ${failures.limit}
      )
      select k.*, failed.n as failed from failed left join k on true`.execute(sqlOf(this.em));
    const { failed, ...key } = rows[0];
    if (failed >= failures.limit) return 'throttled';
    return key.id === null ? null : key;
  }

  /** Tells every process that the key's scopes or limit changed (see `CredentialCache`), and its allow-list when `restricted`. */
  async announceChanged(id: string, restricted: boolean): Promise<void> {
    await announceRevoked(sqlOf(this.em), [`key-changed:${id}`, ...(restricted ? [`key-restricted:${id}`] : [])]);
  }

  /** The key was deleted: the processes close the WebSocket clients it authenticated. */
  async announceRevoked(id: string): Promise<void> {
    await announceRevoked(sqlOf(this.em), [`key:${id}`]);
  }

  byId(accountId: string, id: string): Promise<ApiKeyRow | null> {
    return this.em.findOne(ApiKey, { id, accountId });
  }

  page(accountId: string, after: Cursor | null, limit: number): Promise<ApiKeyRow[]> {
    return this.em.find(ApiKey, { accountId, ...afterCursor(after) }, createdPageOptions(limit));
  }

  create(data: Omit<ApiKeyRow, 'createdAt' | 'lastUsedAt'> & { lastUsedAt?: null }): ApiKeyRow {
    return this.em.create(ApiKey, data);
  }

  remove(key: ApiKeyRow): void {
    this.em.remove(key);
  }

  flush(): Promise<void> {
    return this.em.flush();
  }
}

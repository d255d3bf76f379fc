import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../http/pagination.ts';
import { CREATED_ORDER, afterCursor } from '../db/keyset.ts';
import { ApiKey, type ApiKeyRow } from './entities.ts';

export class ApiKeyRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  /**
   * The hot path of every API-key request, in one round trip: unless the client's address
   * presented `failures.limit` unknown or expired keys in this window already, find the key by hash, count
   * the request in the key's rate-limit window, and mark the key used (at most once a minute).
   */
  async authenticate(
    keyHash: string,
    windowStart: number,
    failures: { bucket: string; limit: number },
  ): Promise<{ key: ApiKeyRow; count: number } | 'throttled' | null> {
    const [row] = await this.em.execute(
      `with failed as (
         select coalesce((select count from rate_limit_counters where bucket = ? and window_start = to_timestamp(?)), 0) as n
       ),
       k as (select * from api_keys where key_hash = ? and (select n from failed) < ?),
       counted as (
         insert into rate_limit_counters (bucket, window_start, count)
         select 'key:' || id, to_timestamp(?), 1 from k
         on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
         returning count
       ),
       touched as (
         update api_keys set last_used_at = now()
         where id = (select id from k) and (last_used_at is null or last_used_at < now() - interval '1 minute')
         returning 1
       )
       select k.*, (select count from counted) as request_count, (select count(*) from touched) as touched,
         (select n from failed) as failed_count
       from failed left join k on true`,
      [failures.bucket, windowStart, keyHash, failures.limit, windowStart],
    );
    const { request_count: count, touched: _touched, failed_count: failed, ...columns } = row;
    if (failed >= failures.limit) return 'throttled';
    if (columns.id === null) return null;
    return { key: this.em.map(ApiKey, columns), count: Number(count) };
  }

  byId(accountId: string, id: string): Promise<ApiKeyRow | null> {
    return this.em.findOne(ApiKey, { id, accountId });
  }

  page(accountId: string, after: Cursor | null, limit: number): Promise<ApiKeyRow[]> {
    return this.em.find(ApiKey, { accountId, ...afterCursor(after) }, { orderBy: CREATED_ORDER, limit: limit + 1 });
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

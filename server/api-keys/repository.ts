import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../http/pagination.ts';
import { CREATED_ORDER, afterCursor } from '../db/keyset.ts';
import { ApiKey, type ApiKeyRow } from './entities.ts';

export class ApiKeyRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  byHash(keyHash: string): Promise<ApiKeyRow | null> {
    return this.em.findOne(ApiKey, { keyHash });
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

  /** Marks use at most once a minute, so a busy key does not write on every request. */
  async touch(id: string): Promise<void> {
    await this.em.getConnection().execute(
      "update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')",
      [id],
    );
  }

  flush(): Promise<void> {
    return this.em.flush();
  }
}

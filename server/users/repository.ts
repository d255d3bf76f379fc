import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../contract/pagination.ts';
import { afterCursor, createdPageOptions } from '../db/keyset.ts';
import { User, type UserRow } from '../auth/entities.ts';

/** Reads of an account's users; they are written by the auth repository, which owns accounts, users and sessions. */
export class UserRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  page(accountId: string, after: Cursor | null, limit: number): Promise<UserRow[]> {
    return this.em.find(User, { accountId, ...afterCursor(after) }, createdPageOptions(limit));
  }

  countOwners(accountId: string): Promise<number> {
    return this.em.count(User, { accountId, role: 'owner' });
  }
}

import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.ts';
import { sqlOf } from '../db/kysely.ts';
import { announceRevoked } from './revocations.ts';
import { randomToken } from '../db/ids.ts';
import type { CachedSession, CredentialCache } from './credential-cache.ts';
import { Account, Session, User, type AccountRow, type SessionRow, type UserRow } from './entities.ts';

/** Accounts, users and sessions in the database. */
export class AuthRepository {
  private readonly em: EntityManager;
  /** Told at once of the sessions this process ends (the others hear of them on `sendline_revocations`). */
  private readonly credentials: CredentialCache | null;

  constructor(em: EntityManager, credentials: CredentialCache | null = null) {
    this.em = em;
    this.credentials = credentials;
  }

  userByEmail(email: string): Promise<UserRow | null> {
    return this.em.findOne(User, { email: { $ilike: email.replace(/[\\%_]/g, '\\$&') } });
  }

  userById(accountId: string, id: string): Promise<UserRow | null> {
    return this.em.findOne(User, { id, accountId });
  }

  userByIdAnyAccount(id: string): Promise<UserRow | null> {
    return this.em.findOne(User, { id });
  }

  account(id: string) {
    return this.em.findOneOrFail(Account, { id });
  }

  async countUsers(): Promise<number> {
    return this.em.count(User, {});
  }

  createAccount(id: string, name: string) {
    return this.em.create(Account, { id, name, publicId: randomToken(22) });
  }

  createUser(data: { id: string; accountId: string; email: string; name: string; role: UserRow['role']; passwordHash: string }) {
    return this.em.create(User, data);
  }

  /** Deletes the user, its sessions ended first (announced: they go with it). */
  async removeUser(user: UserRow): Promise<void> {
    await this.endSessions(user.id);
    this.em.remove(user);
  }

  createSession(data: { id: string; userId: string; refreshHash: string; expiresAt: Date }) {
    return this.em.create(Session, data);
  }

  session(id: string): Promise<SessionRow | null> {
    return this.em.findOne(Session, { id });
  }

  /** The live session and its user, in one query: what every JWT request needs. */
  async activeSession(sessionId: string, userId: string): Promise<CachedSession | null> {
    const row = await sqlOf(this.em)
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['u.id as userId', 'u.account_id as accountId', 'u.role', 's.expires_at as expiresAt'])
      .where('s.id', '=', sessionId)
      .where('s.user_id', '=', userId)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', new Date())
      .executeTakeFirst();
    return row ?? null;
  }

  /** Swaps the refresh hash only if it is still the old one, so two racing refreshes cannot both win. */
  async rotateRefresh(sessionId: string, oldHash: string, newHash: string): Promise<boolean> {
    const changed = await this.em.nativeUpdate(Session, { id: sessionId, refreshHash: oldHash, revokedAt: null }, { refreshHash: newHash });
    return changed === 1;
  }

  async revokeSession(sessionId: string): Promise<void> {
    const ended = await sqlOf(this.em)
      .updateTable('sessions')
      .set({ revoked_at: new Date() })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .returning('id')
      .execute();
    await announceRevoked(
      sqlOf(this.em),
      ended.map((s) => `session:${s.id}`),
    );
    this.credentials?.evict(`session:${sessionId}`);
  }

  async revokeSessionsOf(userId: string): Promise<void> {
    await this.endSessions(userId);
    this.credentials?.evict(`user:${userId}`);
  }

  /**
   * Ends the user's live sessions but `keep`, each announced as `session:<id>` so that every
   * process closes the WebSocket clients that authenticated with it.
   */
  private async endSessions(userId: string, keep: string | null = null): Promise<void> {
    const ended = await sqlOf(this.em)
      .updateTable('sessions')
      .set({ revoked_at: new Date() })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .$if(keep !== null, (q) => q.where('id', '<>', keep!))
      .returning('id')
      .execute();
    await announceRevoked(
      sqlOf(this.em),
      ended.map((s) => `session:${s.id}`),
    );
  }

  /**
   * A user's new password hash and the end of every other session of theirs, in one transaction:
   * no other session outlives the old password, and no password changes without ending them.
   */
  async replacePassword(userId: string, passwordHash: string, keepSessionId: string): Promise<void> {
    await this.em.transactional(async (tx) => {
      await tx.nativeUpdate(User, { id: userId }, { passwordHash });
      await new AuthRepository(tx).endSessions(userId, keepSessionId);
    });
    this.credentials?.evict(`user:${userId}`);
  }

  async updateAccount(id: string, change: Partial<Pick<AccountRow, 'name' | 'timezone'>>): Promise<AccountRow> {
    const account = await this.account(id);
    if (change.name !== undefined) account.name = change.name;
    if (change.timezone !== undefined) account.timezone = change.timezone;
    await this.em.flush();
    return account;
  }

  flush(): Promise<void> {
    return this.em.flush();
  }

  /**
   * Flushes a new user; false when the email turned out to be taken (by a request that checked
   * at the same time: the unique index decides).
   */
  async flushNewUser(): Promise<boolean> {
    try {
      await this.em.flush();
      return true;
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      this.em.clear();
      return false;
    }
  }
}

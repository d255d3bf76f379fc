import type { components } from '../../generated/openapi.d.ts';
import { newId } from '../db/ids.ts';
import type { UserRole, UserRow } from '../auth/entities.ts';
import { AuthRepository } from '../auth/repository.ts';
import type { EntityManager } from '../db/orm.ts';
import { hashPassword } from '../auth/passwords.ts';
import { emailTaken, invalidSession } from '../auth/service.ts';
import { normaliseEmail } from '../email.ts';
import type { Principal } from '../principal.ts';
import { conflict, forbidden, notFound } from '../contract/problem.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { UserRepository } from './repository.ts';
import { userJson } from '../auth/json.ts';

type User = components['schemas']['User'];

const RANK: Record<UserRole, number> = { member: 0, admin: 1, owner: 2 };

/**
 * Owners and admins manage users; nobody grants a role above their own or changes someone
 * who ranks above them, and the last owner stays.
 */
export function assertCanManage(actor: UserRole, target: UserRole | null, grant: UserRole | null): void {
  if (actor === 'member') throw forbidden('insufficient_role', 'Only owners and admins manage users.');
  if (target && RANK[target] > RANK[actor]) throw forbidden('insufficient_role', `An ${actor} cannot change an ${target}.`);
  if (grant && RANK[grant] > RANK[actor]) throw forbidden('insufficient_role', `An ${actor} cannot grant the ${grant} role.`);
}

export class UserService {
  private readonly repo: UserRepository;
  private readonly auth: AuthRepository;
  private readonly em: EntityManager;

  constructor(repo: UserRepository, auth: AuthRepository, em: EntityManager) {
    this.repo = repo;
    this.auth = auth;
    this.em = em;
  }

  async list(principal: Principal, limit: number, cursor?: string): Promise<components['schemas']['UserPage']> {
    const rows = await this.repo.page(principal.accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (u) => ({ at: u.createdAt, id: u.id }), userJson);
  }

  async get(principal: Principal, id: string): Promise<User> {
    const user = await this.auth.userById(principal.accountId, id);
    if (!user) throw notFound('user');
    return userJson(user);
  }

  async create(principal: Principal, input: components['schemas']['UserCreate']): Promise<User> {
    const role = input.role ?? 'member';
    assertCanManage(principal.role!, null, role);
    const email = normaliseEmail(input.email);
    if (await this.auth.userByEmail(email)) throw emailTaken();
    const user = this.auth.createUser({
      id: newId('usr'),
      accountId: principal.accountId,
      email,
      name: input.name,
      role,
      passwordHash: await hashPassword(input.password),
    });
    if (!(await this.auth.flushNewUser())) throw emailTaken();
    return userJson(user);
  }

  async update(principal: Principal, id: string, input: components['schemas']['UserUpdate']): Promise<User> {
    return this.lockedAccount(principal, async (actor, auth, users) => {
      const user = await auth.userById(principal.accountId, id);
      if (!user) throw notFound('user');
      const changesOther = input.role !== undefined || input.password !== undefined;
      if (user.id !== actor.id || changesOther) assertCanManage(actor.role, user.role, input.role ?? null);
      if (user.role === 'owner' && input.role && input.role !== 'owner') await assertNotLastOwner(users, principal.accountId);
      if (input.name !== undefined) user.name = input.name;
      if (input.role !== undefined) user.role = input.role;
      if (input.password !== undefined) {
        user.passwordHash = await hashPassword(input.password);
        await auth.revokeSessionsOf(user.id);
      }
      return userJson(user);
    });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    await this.lockedAccount(principal, async (actor, auth, users) => {
      const user = await auth.userById(principal.accountId, id);
      if (!user) throw notFound('user');
      assertCanManage(actor.role, user.role, null);
      if (user.role === 'owner') await assertNotLastOwner(users, principal.accountId);
      await auth.removeUser(user);
    });
  }

  /**
   * Runs `change` in a transaction holding the account's row lock, so changes to one account's
   * users happen one at a time (two owners demoting each other cannot both see a second owner),
   * with the acting user as they are now, not as they were when the request began.
   */
  private lockedAccount<T>(principal: Principal, change: (actor: UserRow, auth: AuthRepository, users: UserRepository) => Promise<T>): Promise<T> {
    return this.em.transactional(async (em) => {
      await em.execute('select 1 from accounts where id = ? for no key update', [principal.accountId]);
      const auth = new AuthRepository(em);
      const actor = await auth.userById(principal.accountId, principal.userId!);
      if (!actor) throw invalidSession();
      return change(actor, auth, new UserRepository(em));
    });
  }
}

async function assertNotLastOwner(users: UserRepository, accountId: string): Promise<void> {
  if ((await users.countOwners(accountId)) <= 1) {
    throw conflict('last_owner', 'An account keeps at least one owner.');
  }
}

import { newId } from '../db/ids.ts';
import type { UserRole, UserRow } from '../auth/entities.ts';
import type { AuthRepository } from '../auth/repository.ts';
import { hashPassword } from '../auth/passwords.ts';
import { normaliseEmail } from '../email.ts';
import type { Principal } from '../auth/principal.ts';
import { conflict, forbidden, notFound } from '../http/problem.ts';
import { decodeCursor, toPage } from '../http/pagination.ts';
import type { UserRepository } from './repository.ts';

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

  constructor(repo: UserRepository, auth: AuthRepository) {
    this.repo = repo;
    this.auth = auth;
  }

  async list(principal: Principal, limit: number, cursor?: string) {
    const rows = await this.repo.page(principal.accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (u) => ({ at: u.createdAt, id: u.id }), (u) => u);
  }

  async get(principal: Principal, id: string): Promise<UserRow> {
    const user = await this.auth.userById(principal.accountId, id);
    if (!user) throw notFound('user');
    return user;
  }

  async create(principal: Principal, input: { email: string; password: string; name: string; role?: UserRole }): Promise<UserRow> {
    const role = input.role ?? 'member';
    assertCanManage(principal.role!, null, role);
    const email = normaliseEmail(input.email);
    if (await this.auth.userByEmail(email)) throw conflict('email_taken', 'A user with this email exists.');
    const user = this.auth.createUser({
      id: newId('usr'),
      accountId: principal.accountId,
      email,
      name: input.name,
      role,
      passwordHash: await hashPassword(input.password),
    });
    await this.auth.flush();
    return user;
  }

  async update(principal: Principal, id: string, input: { name?: string; role?: UserRole; password?: string }): Promise<UserRow> {
    const user = await this.get(principal, id);
    const changesOther = input.role !== undefined || input.password !== undefined;
    if (user.id !== principal.userId || changesOther) assertCanManage(principal.role!, user.role, input.role ?? null);
    if (user.role === 'owner' && input.role && input.role !== 'owner') await this.assertNotLastOwner(principal.accountId);
    if (input.name !== undefined) user.name = input.name;
    if (input.role !== undefined) user.role = input.role;
    if (input.password !== undefined) {
      user.passwordHash = await hashPassword(input.password);
      await this.auth.revokeSessionsOf(user.id);
    }
    await this.auth.flush();
    return user;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const user = await this.get(principal, id);
    assertCanManage(principal.role!, user.role, null);
    if (user.role === 'owner') await this.assertNotLastOwner(principal.accountId);
    this.repo.remove(user);
    await this.auth.flush();
  }

  private async assertNotLastOwner(accountId: string): Promise<void> {
    if ((await this.repo.countOwners(accountId)) <= 1) {
      throw conflict('last_owner', 'An account keeps at least one owner.');
    }
  }
}

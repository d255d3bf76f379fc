import type { components } from '../../generated/openapi.d.ts';
import type { Config } from '../config.ts';
import { normaliseEmail } from '../email.ts';
import { newId } from '../db/ids.ts';
import { Problem, conflict, forbidden, validationFailed } from '../contract/problem.ts';
import { timeZoneName } from '../formats/timezone.ts';
import { RATE_LIMIT_WINDOW_SECONDS, type RateLimitStore, type WindowCount } from '../rate-limits/limiter.ts';
import type { Access } from './access.ts';
import type { CachedSession } from './credential-cache.ts';
import type { UserRow } from './entities.ts';
import { accountJson, userJson } from './json.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import type { Principal } from '../principal.ts';
import type { AuthRepository } from './repository.ts';
import {
  ACCESS_TOKEN_SECONDS,
  SESSION_DAYS,
  formatRefreshToken,
  newRefreshSecret,
  parseRefreshToken,
  sameHash,
  sha256,
  signAccessToken,
  verifyAccessToken,
} from './tokens.ts';

type Session = components['schemas']['Session'];

const THROTTLE_WINDOW_SECONDS = 15 * 60;
const SIGNUP_WINDOW_SECONDS = 60 * 60;
/** An address may fail for several people behind one NAT before it is throttled. */
const IP_ATTEMPTS_FACTOR = 5;

const invalidCredentials = () => new Problem(401, 'invalid_credentials', 'The email or password is wrong.');
export const emailTaken = () => conflict('email_taken', 'A user with this email exists.');
export const invalidSession = () => new Problem(401, 'invalid_token', 'The session has ended or the token is not valid; log in again.');

export class AuthService {
  private readonly repo: AuthRepository;
  private readonly config: Config;
  private readonly limits: RateLimitStore;
  /** The process's caches, in a server (tools run without them). */
  private readonly access: Access | null;

  constructor(repo: AuthRepository, config: Config, limits: RateLimitStore, access: Access | null = null) {
    this.repo = repo;
    this.config = config;
    this.limits = limits;
    this.access = access;
  }

  async login(email: string, password: string, ip: string): Promise<Session> {
    const emailBucket = `login:email:${sha256(email.trim().toLowerCase())}`;
    const ipBucket = `login:ip:${ip}`;
    const limit = this.config.loginAttemptsPerWindow;
    // Counted before the password is checked, atomically: parallel attempts cannot all pass a
    // check made before any of them was counted.
    const {
      counts: [byEmail, byIp],
      resetIn,
    } = await this.limits.hitEach([emailBucket, ipBucket], THROTTLE_WINDOW_SECONDS);
    if (byEmail > limit || byIp > limit * IP_ATTEMPTS_FACTOR) {
      throw new Problem(429, 'too_many_login_attempts', `Too many failed logins; retry in ${resetIn} s.`, {
        headers: { 'Retry-After': String(resetIn) },
      });
    }
    const user = await this.repo.userByEmail(normaliseEmail(email));
    const ok = await verifyPassword(user?.passwordHash ?? null, password);
    if (!user || !ok) throw invalidCredentials();
    // Only failures count: a success forgets the email's and takes back the address's attempt.
    await Promise.all([this.limits.clear(emailBucket), this.limits.unhit(ipBucket, THROTTLE_WINDOW_SECONDS)]);
    return this.openSession(user);
  }

  async register(input: components['schemas']['RegisterRequest'], ip: string): Promise<Session> {
    if (!this.config.allowSignup) throw forbidden('signup_disabled', 'Sign-up is disabled on this server.');
    // Every attempt counts, refused ones too: a 409 tells whether an email has an account.
    const {
      counts: [attempts],
      resetIn,
    } = await this.limits.hitEach([`signup:ip:${ip}`], SIGNUP_WINDOW_SECONDS);
    if (attempts > this.config.signupsPerHour) {
      throw new Problem(429, 'too_many_signups', `Too many sign-ups from this address; retry in ${resetIn} s.`, {
        headers: { 'Retry-After': String(resetIn) },
      });
    }
    const user = await this.createOwner({ email: input.email, password: input.password, name: input.name, accountName: input.account_name });
    return this.openSession(user);
  }

  /** A new account with its first owner. */
  async createOwner(input: { email: string; password: string; name: string; accountName: string }): Promise<UserRow> {
    const email = normaliseEmail(input.email);
    if (await this.repo.userByEmail(email)) throw emailTaken();
    const account = this.repo.createAccount(newId('acc'), input.accountName);
    const user = this.repo.createUser({
      id: newId('usr'),
      accountId: account.id,
      email,
      name: input.name,
      role: 'owner',
      passwordHash: await hashPassword(input.password),
    });
    if (!(await this.repo.flushNewUser())) throw emailTaken();
    return user;
  }

  /** At start: the first owner from ADMIN_EMAIL / ADMIN_PASSWORD, when there is no user yet. */
  async ensureFirstOwner(): Promise<UserRow | null> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword || (await this.repo.countUsers()) > 0) return null;
    return this.createOwner({ email: adminEmail, password: adminPassword, name: 'Admin', accountName: 'Default' });
  }

  async refresh(refreshToken: string): Promise<Session> {
    const parsed = parseRefreshToken(refreshToken);
    const session = parsed && (await this.repo.session(parsed.sessionId));
    if (!parsed || !session || session.revokedAt || session.expiresAt < new Date()) throw invalidSession();
    const secret = newRefreshSecret();
    const presented = sha256(parsed.secret);
    const rotated = sameHash(session.refreshHash, presented) && (await this.repo.rotateRefresh(session.id, presented, sha256(secret)));
    if (!rotated) {
      // A refresh token that was already exchanged: someone holds a copy. End the whole family.
      await this.repo.revokeSession(session.id);
      throw new Problem(401, 'refresh_token_reused', 'This refresh token was already used; the session is revoked.');
    }
    const user = await this.repo.userByIdAnyAccount(session.userId);
    if (!user) throw invalidSession();
    return this.issue(user, session.id, secret);
  }

  /** Ends the caller's session, or with `everywhere` every session of its user. */
  async logout(principal: Principal, everywhere = false): Promise<void> {
    if (!principal.sessionId) throw forbidden('session_required', 'Only a logged-in session can log out.');
    if (everywhere && principal.userId) await this.repo.revokeSessionsOf(principal.userId);
    else await this.repo.revokeSession(principal.sessionId);
  }

  /** The user and session behind a JWT (in memory once looked up), or null when the token or its session is no longer valid. */
  async authenticateToken(token: string): Promise<{ session: CachedSession; sessionId: string } | null> {
    const claims = verifyAccessToken(this.config.jwtSecret, token);
    if (!claims) return null;
    const credentials = this.access?.credentials;
    let session = credentials?.session(claims.sid);
    if (!session) {
      const generation = credentials?.generation() ?? 0;
      const found = await this.repo.activeSession(claims.sid, claims.sub);
      if (!found) return null;
      session = found;
      credentials?.rememberSession(claims.sid, session, generation);
    }
    const valid = session.userId === claims.sub && session.accountId === claims.acc && session.expiresAt > new Date();
    return valid ? { session, sessionId: claims.sid } : null;
  }

  /** Counts a session's request against its user's rate limit. */
  countRequest(userId: string): Promise<WindowCount> {
    const bucket = `usr:${userId}`;
    return this.access ? this.access.counters.hit(bucket) : this.limits.hit(bucket, RATE_LIMIT_WINDOW_SECONDS);
  }

  async me(principal: Principal): Promise<components['schemas']['Me']> {
    const user = principal.userId ? await this.repo.userById(principal.accountId, principal.userId) : null;
    const account = await this.repo.account(principal.accountId);
    return { user: user && userJson(user), account: accountJson(account), auth: principal.via, scopes: principal.scopes };
  }

  async account(principal: Principal): Promise<components['schemas']['Account']> {
    return accountJson(await this.repo.account(principal.accountId));
  }

  async updateAccount(principal: Principal, input: components['schemas']['AccountUpdate']): Promise<components['schemas']['Account']> {
    if (input.name === undefined && input.timezone === undefined) return this.account(principal);
    const timezone = input.timezone === undefined ? undefined : timeZoneName(input.timezone);
    if (timezone === null) throw validationFailed([{ pointer: '/timezone', detail: 'is not an IANA time zone name such as Europe/Paris' }]);
    return accountJson(await this.repo.updateAccount(principal.accountId, { name: input.name, timezone }));
  }

  /**
   * The caller's own password, given the current one; every other session of the user ends. A
   * wrong current password counts as a failed login for the email: a stolen session cannot
   * guess the password any faster than the login form could.
   */
  async changePassword(principal: Principal, current: string, next: string): Promise<void> {
    if (!principal.sessionId || !principal.userId) throw forbidden('session_required', 'Only a logged-in user can change their password.');
    const user = await this.repo.userById(principal.accountId, principal.userId);
    if (!user) throw invalidSession();
    const bucket = `login:email:${sha256(user.email.toLowerCase())}`;
    const {
      counts: [failures],
      resetIn,
    } = await this.limits.hitEach([bucket], THROTTLE_WINDOW_SECONDS);
    if (failures > this.config.loginAttemptsPerWindow) {
      throw new Problem(429, 'too_many_login_attempts', `Too many wrong passwords; retry in ${resetIn} s.`, { headers: { 'Retry-After': String(resetIn) } });
    }
    if (!(await verifyPassword(user.passwordHash, current))) {
      throw new Problem(422, 'wrong_password', 'The current password is wrong.', {
        errors: [{ pointer: '/current_password', detail: 'is not the current password' }],
      });
    }
    await this.limits.clear(bucket);
    await this.repo.replacePassword(user.id, await hashPassword(next), principal.sessionId);
  }

  private async openSession(user: UserRow): Promise<Session> {
    const secret = newRefreshSecret();
    const session = this.repo.createSession({
      id: newId('ses'),
      userId: user.id,
      refreshHash: sha256(secret),
      expiresAt: new Date(Date.now() + SESSION_DAYS * 86_400_000),
    });
    await this.repo.flush();
    return this.issue(user, session.id, secret);
  }

  private issue(user: UserRow, sessionId: string, secret: string): Session {
    return {
      success: true,
      token: signAccessToken(this.config.jwtSecret, { sub: user.id, sid: sessionId, acc: user.accountId }),
      refresh_token: formatRefreshToken(sessionId, secret),
      expires_in: ACCESS_TOKEN_SECONDS,
      user: userJson(user),
    };
  }
}

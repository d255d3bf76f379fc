import type { BlockList } from 'node:net';
import type { Scope } from '../principal.ts';
import type { UserRole } from './entities.ts';

/** What a request needs of an API key, kept in memory by the hash of its secret. */
export interface CachedKey {
  id: string;
  accountId: string;
  scopes: Scope[];
  allowList: BlockList | null;
  rateLimitPerMinute: number | null;
  expiresAt: Date | null;
}

/** What a request needs of a live session and its user. */
export interface CachedSession {
  userId: string;
  accountId: string;
  role: UserRole;
  expiresAt: Date;
}

/** What `sendline_revocations` announces (see `announceRevoked`). */
export interface RevocationSource {
  onRevoked(handler: (credential: string) => void): void;
  onConnected(handler: () => void): void;
  readonly connected: boolean;
}

/**
 * API keys and sessions resolved from memory, evicted exactly: every process hears on
 * `sendline_revocations` when a key is deleted or its allow-list, scopes or limit change
 * (`key:`, `key-restricted:`, `key-changed:`), when a session ends (`session:`) and when a user's
 * role changes or the user is deleted (`user:`), and the process that made the change evicts at
 * once too. While the listening connection is down, nothing is cached (announcements are lost
 * then), and everything is forgotten when it comes back.
 *
 * A look-up that started before an eviction may read what the eviction removed: what it found is
 * cached only if no eviction happened while it ran (`generation`).
 */
export class CredentialCache {
  private readonly keys = new Map<string, CachedKey>();
  private readonly keyHashes = new Map<string, string>();
  private readonly sessions = new Map<string, CachedSession>();
  private evictions = 0;
  private source: RevocationSource | null = null;
  /** Entries kept at most, each kind: past it, the oldest go. */
  private readonly capacity: number;

  constructor(capacity = 100_000) {
    this.capacity = capacity;
  }

  /** Listens for revocations; until then nothing is cached. */
  listen(source: RevocationSource): void {
    this.source = source;
    source.onRevoked((credential) => this.evict(credential));
    source.onConnected(() => this.clear());
  }

  private get caching(): boolean {
    return this.source?.connected ?? false;
  }

  /** Taken before a look-up; pass it to `remember…`. */
  generation(): number {
    return this.evictions;
  }

  key(hash: string): CachedKey | undefined {
    return this.caching ? this.keys.get(hash) : undefined;
  }

  rememberKey(hash: string, key: CachedKey, generation: number): void {
    if (!this.caching || generation !== this.evictions) return;
    if (this.keys.size >= this.capacity) this.forgetOldestKey();
    this.keys.set(hash, key);
    this.keyHashes.set(key.id, hash);
  }

  session(id: string): CachedSession | undefined {
    return this.caching ? this.sessions.get(id) : undefined;
  }

  rememberSession(id: string, session: CachedSession, generation: number): void {
    if (!this.caching || generation !== this.evictions) return;
    if (this.sessions.size >= this.capacity) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(id, session);
  }

  /** `key:<id>`, `key-restricted:<id>`, `key-changed:<id>`, `session:<id>` or `user:<id>`. */
  evict(credential: string): void {
    this.evictions++;
    const separator = credential.indexOf(':');
    const kind = credential.slice(0, separator);
    const id = credential.slice(separator + 1);
    if (kind.startsWith('key')) {
      const hash = this.keyHashes.get(id);
      this.keyHashes.delete(id);
      if (hash) this.keys.delete(hash);
    } else if (kind === 'session') {
      this.sessions.delete(id);
    } else if (kind === 'user') {
      for (const [sessionId, session] of this.sessions) if (session.userId === id) this.sessions.delete(sessionId);
    } else {
      this.clear();
    }
  }

  clear(): void {
    this.evictions++;
    this.keys.clear();
    this.keyHashes.clear();
    this.sessions.clear();
  }

  private forgetOldestKey(): void {
    const hash = this.keys.keys().next().value!;
    const key = this.keys.get(hash)!;
    this.keys.delete(hash);
    this.keyHashes.delete(key.id);
  }
}

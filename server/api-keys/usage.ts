import { sql } from 'kysely';
import type { EntityManager } from '../db/orm.ts';
import { sqlOf } from '../db/kysely.ts';
import type { Logger } from '../logger.ts';

/** `last_used_at` is kept to the minute: a key is marked at most once a minute. */
const MARK_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 5_000;

/**
 * When keys were last used, by requests accepted with them (not one refused for its address),
 * marked in batches: every FLUSH_EVERY_MS in one statement, so `last_used_at` trails by at most
 * that much plus a minute.
 */
export class KeyUsage {
  private readonly markedAt = new Map<string, number>();
  private pending = new Set<string>();
  private readonly em: EntityManager;
  private readonly log: Logger;
  private readonly timer: NodeJS.Timeout;

  constructor(em: EntityManager, log: Logger) {
    this.em = em;
    this.log = log;
    this.timer = setInterval(() => void this.flush().catch((err) => this.log.warn({ err }, 'marking API keys used failed')), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  used(id: string): void {
    const now = Date.now();
    if (now - (this.markedAt.get(id) ?? 0) < MARK_EVERY_MS) return;
    this.markedAt.set(id, now);
    this.pending.add(id);
  }

  async flush(): Promise<void> {
    const cutoff = Date.now() - MARK_EVERY_MS;
    for (const [id, at] of this.markedAt) if (at < cutoff) this.markedAt.delete(id);
    if (!this.pending.size) return;
    const ids = [...this.pending];
    this.pending = new Set();
    await sql`update api_keys set last_used_at = now()
      where id = any(${ids}::text[]) and (last_used_at is null or last_used_at < now() - interval '1 minute')`.execute(sqlOf(this.em));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

import type { Response } from 'express';
import type { EntityManager } from '../db/orm.ts';
import { Problem } from './problem.ts';

export interface WindowCount {
  count: number;
  /** Seconds until the window ends. */
  resetIn: number;
}

/** The fixed window containing now: its start (Unix seconds) and the seconds left in it. */
export function currentWindow(windowSeconds: number): { start: number; resetIn: number } {
  const now = Date.now() / 1000;
  const start = Math.floor(now / windowSeconds) * windowSeconds;
  return { start, resetIn: Math.max(1, Math.ceil(start + windowSeconds - now)) };
}

/**
 * Fixed-window counters in PostgreSQL, so every server process on one database enforces the
 * same limit. One upsert per hit.
 */
export class RateLimitStore {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  async hit(bucket: string, windowSeconds: number): Promise<WindowCount> {
    const { start, resetIn } = currentWindow(windowSeconds);
    const [row] = await this.em.execute<{ count: number }[]>(
      `insert into rate_limit_counters (bucket, window_start, count) values (?, to_timestamp(?), 1)
       on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
       returning count`,
      [bucket, start],
    );
    return { count: row.count, resetIn };
  }

  /** Counts one hit in each bucket in one statement, so concurrent hits each see their own count. */
  async hitEach(buckets: string[], windowSeconds: number): Promise<{ counts: number[]; resetIn: number }> {
    const { start, resetIn } = currentWindow(windowSeconds);
    const rows = await this.em.execute<{ bucket: string; count: number }[]>(
      `insert into rate_limit_counters (bucket, window_start, count)
       values ${buckets.map(() => '(?, to_timestamp(?), 1)').join(', ')}
       on conflict (bucket, window_start) do update set count = rate_limit_counters.count + 1
       returning bucket, count`,
      buckets.flatMap((bucket) => [bucket, start]),
    );
    const byBucket = new Map(rows.map((row) => [row.bucket, row.count]));
    return { counts: buckets.map((bucket) => byBucket.get(bucket)!), resetIn };
  }

  /** Takes back one hit of the current window (a hit that turned out not to count). */
  async unhit(bucket: string, windowSeconds: number): Promise<void> {
    const { start } = currentWindow(windowSeconds);
    await this.em.execute(
      'update rate_limit_counters set count = count - 1 where bucket = ? and window_start = to_timestamp(?) and count > 0',
      [bucket, start],
    );
  }

  async clear(bucket: string): Promise<void> {
    await this.em.execute('delete from rate_limit_counters where bucket = ?', [bucket]);
  }

  /** Drops windows that ended more than an hour ago. */
  async prune(): Promise<void> {
    await this.em.execute("delete from rate_limit_counters where window_start < now() - interval '1 hour'");
  }
}

export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** Sets the RateLimit headers for a request already counted, and refuses it past `limit`. */
export function applyRateLimit(res: Response, { count, resetIn }: WindowCount, limit: number): void {
  res.setHeader('RateLimit-Limit', String(limit));
  res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - count)));
  res.setHeader('RateLimit-Reset', String(resetIn));
  res.setHeader('RateLimit-Policy', `${limit};w=${RATE_LIMIT_WINDOW_SECONDS}`);
  if (count > limit) {
    throw new Problem(429, 'rate_limited', `More than ${limit} requests in a minute; retry in ${resetIn} s.`, {
      headers: { 'Retry-After': String(resetIn) },
    });
  }
}

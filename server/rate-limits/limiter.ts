import type { Response } from 'express';
import { sql } from 'kysely';
import type { EntityManager } from '../db/orm.ts';
import { sqlOf } from '../db/kysely.ts';
import type { Logger } from '../logger.ts';
import { Problem } from '../contract/problem.ts';

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
    await this.em.execute('update rate_limit_counters set count = count - 1 where bucket = ? and window_start = to_timestamp(?) and count > 0', [
      bucket,
      start,
    ]);
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

/** How often a process adds the requests it counted to the shared counters. */
export const COUNTER_FLUSH_MS = 100;
/** A bucket counted in this process within this long has its total read back at each flush. */
const RECENT_MS = 5_000;

interface LocalCount {
  bucket: string;
  windowStart: number;
  /** The shared count as of this process's last flush (its own flushed requests included). */
  shared: number;
  /** Requests counted here since. */
  unflushed: number;
  /** When this process last counted a request here (ms). */
  lastHitAt: number;
  /** The first request of the window in this process, counted in PostgreSQL before anything else. */
  loading: Promise<void> | null;
}

/**
 * The per-minute request counts of keys and sessions, counted in memory and added to the shared
 * PostgreSQL counters every COUNTER_FLUSH_MS, in one statement for all of them, which also reads
 * back the totals of the buckets counted here lately. A process learns the others' requests at
 * each flush, so a key may go over its limit by what the other processes serve it in twice that
 * time (200 ms).
 * The first request of a window in a process is counted in PostgreSQL at once: a process that
 * joins a busy window starts from the shared count.
 *
 * The same flush reads which addresses are over the unknown-API-key throttle (`badkey:ip:*`
 * buckets), so a known key is refused from a throttled address without a query.
 */
export class RequestCounters {
  private readonly counts = new Map<string, LocalCount>();
  /** `badkey:ip:<address>` buckets at their limit, by the window they are throttled in. */
  private readonly over = new Map<string, number>();
  private readonly store: RateLimitStore;
  private readonly em: EntityManager;
  private readonly throttle: { prefix: string; limit: number };
  private readonly log: Logger;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private active = false;

  constructor(em: EntityManager, throttle: { prefix: string; limit: number }, log: Logger, flushMs = COUNTER_FLUSH_MS) {
    this.em = em;
    this.store = new RateLimitStore(em);
    this.throttle = throttle;
    this.log = log;
    this.timer = setInterval(() => void this.flush().catch((err) => this.log.warn({ err }, 'flushing rate-limit counts failed')), flushMs);
    this.timer.unref();
  }

  /** Counts one request in `bucket`'s current window: its place in the window, shared across processes within the bound above. */
  async hit(bucket: string): Promise<WindowCount> {
    const { start, resetIn } = currentWindow(RATE_LIMIT_WINDOW_SECONDS);
    this.active = true;
    const id = `${start} ${bucket}`;
    const local = this.counts.get(id);
    if (!local) {
      const created: LocalCount = { bucket, windowStart: start, shared: 0, unflushed: 0, lastHitAt: Date.now(), loading: null };
      this.counts.set(id, created);
      created.loading = this.store.hit(bucket, RATE_LIMIT_WINDOW_SECONDS).then(
        ({ count }) => {
          created.shared = count;
          created.loading = null;
        },
        (err: unknown) => {
          this.counts.delete(id);
          throw err;
        },
      );
      await created.loading;
      return { count: created.shared + created.unflushed, resetIn };
    }
    if (local.loading) await local.loading;
    local.unflushed++;
    local.lastHitAt = Date.now();
    return { count: local.shared + local.unflushed, resetIn };
  }

  /** Whether the unknown-key throttle holds `bucket` (`badkey:ip:<address>`) in the current window, as of the last flush or `markOver`. */
  isOver(bucket: string): boolean {
    this.active = true;
    return this.over.get(bucket) === currentWindow(RATE_LIMIT_WINDOW_SECONDS).start;
  }

  markOver(bucket: string): void {
    this.over.set(bucket, currentWindow(RATE_LIMIT_WINDOW_SECONDS).start);
  }

  /** Adds the counted requests to the shared counters and reads back the totals. */
  flush(): Promise<void> {
    this.flushing ??= this.flushNow().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async flushNow(): Promise<void> {
    if (!this.active) return;
    this.active = false;
    const current = currentWindow(RATE_LIMIT_WINDOW_SECONDS).start;
    const ready = [...this.counts.values()].filter((c) => !c.loading);
    const batch = ready.filter((c) => c.unflushed > 0).map((c) => ({ count: c, n: c.unflushed }));
    // Buckets counted here lately but not since the last flush: their totals are read back too,
    // so what the other processes counted reaches this one within a flush.
    const recentSince = Date.now() - RECENT_MS;
    const refreshed = ready.filter((c) => c.unflushed === 0 && c.windowStart === current && c.lastHitAt >= recentSince);
    const { rows } = await sql<{ bucket: string; window_start: number; count: number; over: boolean }>`
      with added as (
        insert into rate_limit_counters (bucket, window_start, count)
        select bucket, to_timestamp(window_start), n
        from unnest(${batch.map((b) => b.count.bucket)}::text[], ${batch.map((b) => b.count.windowStart)}::float8[], ${batch.map((b) => b.n)}::int[])
          as h(bucket, window_start, n)
        on conflict (bucket, window_start) do update set count = rate_limit_counters.count + excluded.count
        returning bucket, extract(epoch from window_start)::float8 as window_start, count
      )
      select bucket, window_start, count, false as over from added
      union all
      select bucket, extract(epoch from window_start)::float8, count, false from rate_limit_counters
      where bucket = any(${refreshed.map((c) => c.bucket)}::text[]) and window_start = to_timestamp(${current})
      union all
      select bucket, ${current}::float8, count, true from rate_limit_counters
      where window_start = to_timestamp(${current}) and starts_with(bucket, ${this.throttle.prefix}) and count >= ${this.throttle.limit}`.execute(
      sqlOf(this.em),
    );
    for (const { count, n } of batch) count.unflushed -= n;
    for (const row of rows) {
      if (row.over) this.over.set(row.bucket, current);
      else {
        const local = this.counts.get(`${row.window_start} ${row.bucket}`);
        if (local) local.shared = row.count;
      }
    }
    for (const [id, local] of this.counts) if (local.windowStart < current && !local.unflushed && !local.loading) this.counts.delete(id);
    for (const [bucket, windowStart] of this.over) if (windowStart < current) this.over.delete(bucket);
    // Requests counted while this flush ran wait for the next.
    if ([...this.counts.values()].some((c) => c.unflushed > 0 || c.lastHitAt >= recentSince)) this.active = true;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.active = true;
    await this.flush();
  }
}

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

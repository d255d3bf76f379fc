import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';

/**
 * `event_subscribers`: the accounts this process holds WebSocket clients of. Events are announced
 * (NOTIFY, which PostgreSQL lets one transaction commit at a time) only for accounts listed here
 * or with events a webhook waits for, so writers nobody listens to never queue on it.
 * Rows are kept by the process that holds the clients; a process that died leaves rows that
 * cost only needless announcements until another process removes them as stale.
 */
const STALE = sql<Date>`now() - interval '10 minutes'`;

export class EventSubscribers {
  private readonly db: Db;
  /** This process, as its rows name it. */
  private readonly listener: string;
  /** Accounts whose row this process has written (or is writing). */
  private readonly registered = new Set<string>();
  /** Writes in the order they were asked for: a removal never overtakes the registration it undoes. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(db: Db, listener: string) {
    this.db = db;
    this.listener = listener;
  }

  private then<T>(write: () => Promise<T>): Promise<T> {
    const done = this.queue.then(write);
    this.queue = done.catch(() => {});
    return done;
  }

  /** Resolves once announcements of the account's events reach this process. */
  register(accountId: string): Promise<void> {
    if (this.registered.has(accountId)) return this.queue.then(() => {});
    this.registered.add(accountId);
    return this.then(() => this.upsert([accountId])).catch((err: unknown) => {
      this.registered.delete(accountId);
      throw err;
    });
  }

  /**
   * Keeps the rows of `held` (the accounts this process has clients of now) fresh, removes the
   * rest of its rows and other processes' stale ones.
   */
  refresh(held: ReadonlySet<string>): Promise<void> {
    const released = [...this.registered].filter((accountId) => !held.has(accountId));
    for (const accountId of released) this.registered.delete(accountId);
    const kept = [...this.registered];
    return this.then(async () => {
      await this.db
        .deleteFrom('event_subscribers')
        .where((eb) =>
          eb.or([eb.and([eb('listener', '=', this.listener), eb('account_id', '=', sql<string>`any(${released}::text[])`)]), eb('seen_at', '<', STALE)]),
        )
        .execute();
      await this.upsert(kept);
    });
  }

  /** Removes every row of this process (it stops). */
  close(): Promise<void> {
    this.registered.clear();
    return this.then(async () => {
      await this.db.deleteFrom('event_subscribers').where('listener', '=', this.listener).execute();
    });
  }

  private async upsert(accountIds: string[]): Promise<void> {
    if (!accountIds.length) return;
    await this.db
      .insertInto('event_subscribers')
      .values(accountIds.map((accountId) => ({ account_id: accountId, listener: this.listener, seen_at: sql<Date>`now()` })))
      .onConflict((oc) => oc.columns(['account_id', 'listener']).doUpdateSet({ seen_at: sql<Date>`excluded.seen_at` }))
      .execute();
  }
}

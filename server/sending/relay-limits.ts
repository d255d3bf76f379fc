import type pg from 'pg';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A relay's connections open in this process, counted in memory every sending thread shares
 * (two cells of a SharedArrayBuffer per relay: open, and threads waiting): a thread opens one
 * only below `max`, and closes one it no longer needs while another thread waits.
 */
export class ConnectionSlots {
  private readonly cells: Int32Array;
  private readonly index: number;
  private readonly max: number;

  constructor(cells: Int32Array, index: number, max: number) {
    this.cells = cells;
    this.index = index * 2;
    this.max = max;
  }

  /** Cells for `relays` relays, to hand every thread. */
  static shared(relays: number): Int32Array {
    return new Int32Array(new SharedArrayBuffer(8 * relays));
  }

  tryTake(): boolean {
    for (;;) {
      const open = Atomics.load(this.cells, this.index);
      if (open >= this.max) return false;
      if (Atomics.compareExchange(this.cells, this.index, open, open + 1) === open) return true;
    }
  }

  give(): void {
    Atomics.sub(this.cells, this.index, 1);
    Atomics.notify(this.cells, this.index);
  }

  /** Resolves once a connection may have closed in any thread (or after `ms`, so no wake-up is missed for long). */
  async changed(ms: number): Promise<void> {
    const open = Atomics.load(this.cells, this.index);
    if (open < this.max) return;
    Atomics.add(this.cells, this.index + 1, 1);
    try {
      const wait = Atomics.waitAsync(this.cells, this.index, open, ms);
      if (wait.async) await wait.value;
    } finally {
      Atomics.sub(this.cells, this.index + 1, 1);
    }
  }

  /** Whether a thread waits for a connection to the relay. */
  wanted(): boolean {
    return Atomics.load(this.cells, this.index + 1) > 0;
  }
}

/** Claims one relay's sending slots: `claim(n)` answers how many it got and until when (ms since epoch, this process's clock) they may be used. */
export type SlotClaim = (n: number) => Promise<{ granted: number; validUntil: number }>;

/**
 * Claims a relay's sends of the current second (the database's clock) from a counter every
 * process shares: the counter goes up by `n` whatever it was, and the claim gets what was left
 * under `rate` before it. Rows of seconds gone are deleted by the same statement.
 */
export function databaseSlots(pool: pg.Pool, relay: string, rate: number): SlotClaim {
  return async (n) => {
    const { rows } = await pool.query<{ taken: number; left_ms: number }>(
      `with now as (select extract(epoch from clock_timestamp())::float8 as t),
       pruned as (delete from relay_send_slots where relay = $1 and second < (select floor(t)::bigint - 10 from now))
       insert into relay_send_slots (relay, second, taken) select $1, floor(t)::bigint, $2 from now
       on conflict (relay, second) do update set taken = relay_send_slots.taken + excluded.taken
       returning taken, (select (floor(t) + 1 - t) * 1000 from now)::float8 as left_ms`,
      [relay, n],
    );
    const { taken, left_ms } = rows[0];
    return { granted: Math.max(0, Math.min(n, rate - (taken - n))), validUntil: Date.now() + left_ms };
  };
}

/**
 * A relay's rate across processes: sends are taken from blocks of slots claimed a tenth of the
 * rate at a time (one query per block, not per message); a block's unused slots lapse with its
 * second, so no second ever carries more than `rate` sends.
 */
export class RelayRate {
  private readonly claim: SlotClaim;
  private readonly block: number;
  private left = 0;
  private validUntil = 0;
  private claiming: Promise<void> | null = null;

  constructor(claim: SlotClaim, rate: number) {
    this.claim = claim;
    this.block = Math.max(1, Math.ceil(rate / 10));
  }

  async take(): Promise<void> {
    for (;;) {
      if (this.left > 0 && Date.now() < this.validUntil) {
        this.left--;
        return;
      }
      this.claiming ??= this.refill().finally(() => {
        this.claiming = null;
      });
      await this.claiming;
    }
  }

  private async refill(): Promise<void> {
    if (this.left > 0 && Date.now() < this.validUntil) return;
    const { granted, validUntil } = await this.claim(this.block);
    this.left = granted;
    this.validUntil = validUntil;
    // The second's slots are gone: the next second's start.
    if (!granted) await sleep(Math.max(1, validUntil - Date.now()));
  }
}

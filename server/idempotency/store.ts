import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/kysely.ts';
import type { AnswerOwner, SealedAnswer } from './sealing.ts';

/** How long a key and its answer are kept. */
export const KEEP_HOURS = 24;
/** How long a reservation whose request never answered (its process died) blocks its key. */
export const RUNNING_LEASE_MINUTES = 10;

export interface Reservation extends AnswerOwner {
  holder: string;
  method: string;
  path: string;
}

/** What a key already holds: a request still running, or a stored answer. */
export type Existing =
  { state: 'running' } | { state: 'answered'; method: string; path: string; requestHash: Uint8Array; status: number; answer: SealedAnswer } | { state: 'none' };

/**
 * Whether any of `hashes` is an erased address of the row's account: erasure leaves the address
 * on the suppression list as its hash alone (`email` null; its `source` is `erasure` unless an
 * entry was there before, whose source stays).
 */
const erasedAddress = (hashes: RawBuilder<unknown>) =>
  sql<boolean>`exists (select 1 from suppressions s where s.account_id = k.account_id and s.email is null and s.email_hash = any(${hashes}))`;

const ofOwner = (o: AnswerOwner) => ({ account_id: o.accountId, credential: o.credential, key: o.key });

/** `idempotency_keys`: the only code that writes it. */
export const idempotencyStore = {
  /**
   * Reserves the key for this request in one statement (INSERT … ON CONFLICT), so of concurrent
   * duplicates on any number of processes exactly one wins. An expired row, or a reservation
   * whose lease ran out, is taken over. Answers whether this request holds the key now.
   */
  async reserve(db: Db, r: Reservation): Promise<boolean> {
    // Times as literals: Citus refuses now() and time arithmetic in ON CONFLICT's SET and WHERE,
    // and loses the type of a parameter there.
    const before = (ms: number) => sql<Date>`${sql.lit(new Date(Date.now() - ms).toISOString())}::timestamptz`;
    const row = await db
      .insertInto('idempotency_keys')
      .values({ ...ofOwner(r), holder: r.holder, method: r.method, path: r.path })
      .onConflict((oc) =>
        oc
          .columns(['account_id', 'credential', 'key'])
          .doUpdateSet({
            holder: r.holder,
            method: r.method,
            path: r.path,
            request_hash: null,
            status: null,
            seal_key_id: null,
            sealed_answer: null,
            email_hashes: null,
            created_at: (eb) => eb.ref('excluded.created_at'),
          })
          .where((eb) =>
            eb.or([
              eb('idempotency_keys.created_at', '<', before(KEEP_HOURS * 3_600_000)),
              eb.and([eb('idempotency_keys.status', 'is', null), eb('idempotency_keys.created_at', '<', before(RUNNING_LEASE_MINUTES * 60_000))]),
            ]),
          ),
      )
      .returning('holder')
      .executeTakeFirst();
    return row?.holder === r.holder;
  },

  /**
   * What the key holds. A stored answer showing an address erased since (see `erasedAddress`) is
   * dropped and answered as none: the request ran while the erasure did and stored its answer
   * after it, and a retry must run again rather than show the person.
   */
  async existing(db: Db, owner: AnswerOwner): Promise<Existing> {
    const row = await db
      .selectFrom('idempotency_keys as k')
      .select(['method', 'path', 'request_hash', 'status', 'seal_key_id', 'sealed_answer'])
      .select(sql<boolean>`${erasedAddress(sql`k.email_hashes`)}`.as('erased'))
      .where('account_id', '=', owner.accountId)
      .where('credential', '=', owner.credential)
      .where('key', '=', owner.key)
      .executeTakeFirst();
    if (!row) return { state: 'none' };
    if (row.erased) {
      await db
        .deleteFrom('idempotency_keys as k')
        .where('account_id', '=', owner.accountId)
        .where('credential', '=', owner.credential)
        .where('key', '=', owner.key)
        .where(erasedAddress(sql`k.email_hashes`))
        .execute();
      return { state: 'none' };
    }
    if (row.status === null || !row.request_hash || !row.seal_key_id || !row.sealed_answer) return { state: 'running' };
    return {
      state: 'answered',
      method: row.method,
      path: row.path,
      requestHash: row.request_hash,
      status: row.status,
      answer: { keyId: row.seal_key_id, sealed: row.sealed_answer },
    };
  },

  /** Stores the answer of the request holding the key, with the addresses it shows (hashed). */
  async answer(db: Db, r: Reservation, requestHash: Buffer, status: number, answer: SealedAnswer, addresses: readonly string[]): Promise<void> {
    await db
      .updateTable('idempotency_keys')
      .set({
        request_hash: requestHash,
        status,
        seal_key_id: answer.keyId,
        sealed_answer: answer.sealed,
        email_hashes: sql<Buffer[]>`array(select distinct sendline_email_hash(a) from unnest(${addresses}::text[]) a)`,
      })
      .where('account_id', '=', r.accountId)
      .where('credential', '=', r.credential)
      .where('key', '=', r.key)
      .where('holder', '=', r.holder)
      .execute();
  },

  /** Frees the key (an answer that is not stored): the next request with it runs. */
  async release(db: Db, r: Reservation): Promise<void> {
    await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', r.accountId)
      .where('credential', '=', r.credential)
      .where('key', '=', r.key)
      .where('holder', '=', r.holder)
      .execute();
  },

  /**
   * Erasure (GDPR): drops the account's stored answers that show the address, in the caller's
   * transaction; a retry with one of their keys runs again. Answers stored before their
   * addresses were (`email_hashes` null, before migration ErasureReachesEmails) may show it
   * too and cannot be read here (they are sealed): they go as well, costing at most a rerun of
   * a retry, and are gone within KEEP_HOURS anyway. Answers how many.
   */
  async forgetAnswersNaming(db: Db, accountId: string, email: string): Promise<number> {
    const result = await db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', accountId)
      .where(sql<boolean>`(email_hashes @> array[sendline_email_hash(${email})] or (email_hashes is null and status is not null))`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },

  /** Drops keys older than KEEP_HOURS; answers how many. */
  async prune(db: Db): Promise<number> {
    const result = await db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', sql<Date>`now() - make_interval(hours => ${KEEP_HOURS})`)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  },
};

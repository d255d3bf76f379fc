import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { keysetPage, OLDEST_FIRST } from '../db/keyset.ts';
import type { Cursor } from '../contract/pagination.ts';
import type { SuppressionReason } from './entities.ts';
import { likePrefix } from '../db/like.ts';

/**
 * Every statement that writes `suppressions`, the account's list of addresses never sent to.
 * Addresses are matched by `sendline_email_hash` (SHA-256 of the lower-cased address), so an
 * erased person's entry, which keeps only the hash, still matches.
 */

/** What put an address on the list. */
export type SuppressionSource = 'api' | 'csv_import' | 'unsubscribe_link' | 'one_click' | 'bounce' | 'complaint' | 'contact_status' | 'erasure';

export interface SuppressionEntry {
  email: string;
  reason: SuppressionReason;
  source: SuppressionSource;
  detail: string | null;
}

export interface SuppressionListed {
  id: string;
  email: string | null;
  reason: SuppressionReason;
  source: string;
  detail: string | null;
  created_at: Date;
}

const COLUMNS = ['id', 'email', 'reason', 'source', 'detail', 'created_at'] as const;

export const suppressions = {
  /**
   * Puts addresses on the account's list in one statement; an address already there keeps its
   * first entry. Answers the addresses added (as given).
   */
  async add(db: Db, accountId: string, entries: readonly SuppressionEntry[]): Promise<string[]> {
    if (!entries.length) return [];
    const { rows } = await sql<{ email: string }>`
      insert into suppressions (id, account_id, email, email_hash, reason, source, detail)
      select sendline_id('sup'), ${accountId}, e.email, sendline_email_hash(e.email), e.reason, e.source, e.detail
      from unnest(${entries.map((e) => e.email)}::text[], ${entries.map((e) => e.reason)}::text[], ${entries.map((e) => e.source)}::text[],
                  ${entries.map((e) => e.detail)}::text[]) as e(email, reason, source, detail)
      order by sendline_email_hash(e.email)
      on conflict (account_id, email_hash) do nothing
      returning email`.execute(db);
    return rows.map((r) => r.email);
  },

  page(db: Db, accountId: string, filters: { reason?: SuppressionReason; email?: string }, after: Cursor | null, limit: number): Promise<SuppressionListed[]> {
    let query = db.selectFrom('suppressions').select(COLUMNS).where('account_id', '=', accountId);
    if (filters.reason) query = query.where('reason', '=', filters.reason);
    if (filters.email) query = query.where(sql<boolean>`lower(email) like ${likePrefix(filters.email)}`);
    return keysetPage(query, OLDEST_FIRST, after, limit).execute();
  },

  async byId(db: Db, accountId: string, id: string): Promise<SuppressionListed | null> {
    const row = await db.selectFrom('suppressions').select(COLUMNS).where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row ?? null;
  },

  async byEmail(db: Db, accountId: string, email: string): Promise<SuppressionListed | null> {
    const row = await db
      .selectFrom('suppressions')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where(sql<boolean>`email_hash = sendline_email_hash(${email})`)
      .executeTakeFirst();
    return row ?? null;
  },

  /** Takes an entry off the list; answers it, or null when the account has none with that id. */
  async remove(db: Db, accountId: string, id: string): Promise<SuppressionListed | null> {
    const row = await db.deleteFrom('suppressions').where('account_id', '=', accountId).where('id', '=', id).returning(COLUMNS).executeTakeFirst();
    return row ?? null;
  },

  /** Takes an address off the list (a contact resubscribed by a person). */
  async removeEmail(db: Db, accountId: string, email: string): Promise<void> {
    await db
      .deleteFrom('suppressions')
      .where('account_id', '=', accountId)
      .where(sql<boolean>`email_hash = sendline_email_hash(${email})`)
      .execute();
  },

  /**
   * Erasure: the address's entry keeps only its hash (one is made when there was none, reason
   * `manual`, source `erasure`), so the person is never mailed again by mistake. Answers its id.
   */
  async keepOnlyHash(db: Db, accountId: string, email: string): Promise<string> {
    const { rows } = await sql<{ id: string }>`
      insert into suppressions (id, account_id, email, email_hash, reason, source, detail)
      values (sendline_id('sup'), ${accountId}, null, sendline_email_hash(${email}), 'manual', 'erasure', null)
      on conflict (account_id, email_hash) do update set email = null, detail = null
      returning id`.execute(db);
    return rows[0].id;
  },
};

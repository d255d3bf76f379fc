import { sql, type SelectQueryBuilder } from 'kysely';
import { decodeCursor } from '../contract/pagination.ts';
import type { Database } from './kysely.ts';
import { keysetPage } from './keyset.ts';

/** Tables of an account's dated records, listed newest first by `(occurred_at, id)`. */
export type RecordTable = 'opens' | 'clicks' | 'bounces' | 'conversions' | 'payments';

/** The filters every record list takes. */
export interface RecordFilters {
  campaign_id?: string;
  contact_id?: string;
  /** Opens, clicks and bounces only: the records that carry the address. */
  email?: string;
  since?: string;
  until?: string;
}

/** `limit + 1` of an account's records after the cursor, newest first, with keyset cursors. */
export function recentRecords<T extends RecordTable, O>(
  query: SelectQueryBuilder<Database, T, O>,
  accountId: string,
  f: RecordFilters,
  limit: number,
  cursor?: string,
) {
  // The columns every record table has, named through one of them for the builder's types.
  let q = query as unknown as SelectQueryBuilder<Database, 'opens', O>;
  const after = decodeCursor(cursor);
  q = q.where('account_id', '=', accountId);
  if (f.campaign_id) q = q.where('campaign_id', '=', f.campaign_id);
  if (f.contact_id) q = q.where('contact_id', '=', f.contact_id);
  if (f.email) q = q.where(sql<boolean>`lower(email) = lower(${f.email})`);
  if (f.since) q = q.where('occurred_at', '>=', new Date(f.since));
  if (f.until) q = q.where('occurred_at', '<', new Date(f.until));
  return keysetPage(q, { at: 'occurred_at', id: 'id', direction: 'desc' }, after, limit);
}

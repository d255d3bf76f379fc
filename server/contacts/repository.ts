import type { components } from '../../generated/openapi.d.ts';
import type { ShownContact } from './json.ts';
import type { EntityManager } from '../db/orm.ts';
import { descending, sortsByEmail, type ContactSort, type SortPosition } from './sort.ts';
import { sql, type SelectQueryBuilder } from 'kysely';
import { likePrefix } from '../db/like.ts';
import { sqlOf, type Database, type Db } from '../db/kysely.ts';
import { inKeysetOrder, NEWEST_FIRST, OLDEST_FIRST } from '../db/keyset.ts';
import { Contact, type ContactRow } from './entities.ts';
import type { ContactStatus } from './rules.ts';

export interface ContactFilters {
  status?: ContactStatus;
  tag?: string;
  email?: string;
  q?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Only these contacts (an export of ticked contacts). */
  ids?: string[];
}

/** The filters of `GET /contacts` as its query, `GET /contacts/count`'s and a bulk request's `filter` give them. */
export function filtersOf(filter: components['schemas']['ContactListFilters']): ContactFilters {
  return {
    status: filter.status,
    tag: filter.tag,
    email: filter.email,
    q: filter.q,
    createdAfter: filter.created_after ? new Date(filter.created_after) : undefined,
    createdBefore: filter.created_before ? new Date(filter.created_before) : undefined,
  };
}

/** The columns a contact is shown with, named as `ShownContact` has them. */
export const SHOWN_CONTACT_COLUMNS = [
  'id',
  'email',
  'first_name as firstName',
  'last_name as lastName',
  'attributes',
  'tags',
  'timezone',
  'status',
  'status_reason as statusReason',
  'status_changed_at as statusChangedAt',
  'created_at as createdAt',
  'updated_at as updatedAt',
] as const;

type ContactQuery<O> = SelectQueryBuilder<Database, 'contacts', O>;

/** The account's contacts that `filters` match, as `GET /contacts` and exports read them; every filter has an index behind it. */
export function matching<O>(query: ContactQuery<O>, accountId: string, filters: ContactFilters): ContactQuery<O> {
  let q = query.where('account_id', '=', accountId);
  const { status, tag, email, q: text, createdAfter, createdBefore, ids } = filters;
  if (ids) q = q.where(sql<boolean>`id = any(${ids}::text[])`);
  if (status) q = q.where('status', '=', status);
  if (tag) q = q.where(sql<boolean>`tags @> array[${tag}]::text[]`);
  if (email) q = q.where(sql<boolean>`lower(email) like ${likePrefix(email)}`);
  if (text) {
    const prefix = likePrefix(text);
    q = q.where(sql<boolean>`(lower(email) like ${prefix} or lower(first_name) like ${prefix} or lower(last_name) like ${prefix})`);
  }
  if (createdAfter) q = q.where('created_at', '>', createdAfter);
  if (createdBefore) q = q.where('created_at', '<', createdBefore);
  return q;
}

/**
 * `query` in `sort` order, after `after`. Emails order by their lower-cased text byte by byte
 * (`~<~`, the `text_pattern_ops` order of the index on it, unique in an account: no tie to break).
 */
function inOrder<O>(query: ContactQuery<O>, sort: ContactSort, after: SortPosition | null): ContactQuery<O> {
  const desc = descending(sort);
  if (sortsByEmail(sort)) {
    const q = after && 'email' in after ? query.where(sql<boolean>`lower(email) ${sql.raw(desc ? '~<~' : '~>~')} ${after.email}`) : query;
    return q.orderBy(sql`lower(email) using ${sql.raw(desc ? '~>~' : '~<~')}`);
  }
  return inKeysetOrder(query, desc ? NEWEST_FIRST : OLDEST_FIRST, after && 'at' in after ? after : null);
}

/** The ids of the next `limit` contacts `filters` match after `after`, in `created_at, id` order: how bulk actions walk a filter. */
export function matchingIds(db: Db, accountId: string, filters: ContactFilters, after: SortPosition | null, limit: number) {
  return inOrder(matching(db.selectFrom('contacts').select(['id', 'created_at as createdAt', 'email']), accountId, filters), 'created_at', after)
    .limit(limit)
    .execute();
}

export class ContactRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  byId(accountId: string, id: string): Promise<ContactRow | null> {
    return this.em.findOne(Contact, { id, accountId });
  }

  async idByEmail(accountId: string, email: string): Promise<string | null> {
    const [row] = await this.em.execute<{ id: string }[]>('select id from contacts where account_id = ? and lower(email) = lower(?)', [accountId, email]);
    return row?.id ?? null;
  }

  /** One page in `sort` order, read as plain rows (a list needs no identity map); every filter and order has an index behind it. */
  page(accountId: string, filters: ContactFilters, sort: ContactSort, after: SortPosition | null, limit: number): Promise<ShownContact[]> {
    const query = matching(sqlOf(this.em).selectFrom('contacts').select(SHOWN_CONTACT_COLUMNS), accountId, filters);
    return inOrder(query, sort, after)
      .limit(limit + 1)
      .execute();
  }
}

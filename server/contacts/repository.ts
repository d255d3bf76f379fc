import type { ShownContact } from './json.ts';
import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../http/pagination.ts';
import { sql, type SelectQueryBuilder } from 'kysely';
import { likePrefix } from '../db/like.ts';
import { sqlOf, type Database } from '../db/kysely.ts';
import { Contact, type ContactRow } from './entities.ts';
import type { ContactStatus } from './rules.ts';

export interface ContactFilters {
  status?: ContactStatus;
  tag?: string;
  email?: string;
  q?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** The columns a contact is shown with, named as `ShownContact` has them. */
export const SHOWN_CONTACT_COLUMNS = [
  'id',
  'email',
  'first_name as firstName',
  'last_name as lastName',
  'attributes',
  'tags',
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
  const { status, tag, email, q: text, createdAfter, createdBefore } = filters;
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

  /** One page in `(created_at, id)` order, read as plain rows (a list needs no identity map); every filter has an index behind it. */
  page(accountId: string, filters: ContactFilters, after: Cursor | null, limit: number): Promise<ShownContact[]> {
    let query = matching(sqlOf(this.em).selectFrom('contacts').select(SHOWN_CONTACT_COLUMNS), accountId, filters);
    if (after) query = query.where((eb) => eb(eb.refTuple('created_at', 'id'), '>', eb.tuple(after.at, after.id)));
    return query
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit + 1)
      .execute();
  }

  remove(contact: ContactRow): void {
    this.em.remove(contact);
  }
}

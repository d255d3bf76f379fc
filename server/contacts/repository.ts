import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '../db/orm.ts';
import type { Cursor } from '../http/pagination.ts';
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

/** `LIKE 'text%'`, with the text's own wildcards escaped: a prefix, served by a text_pattern_ops index. */
const likePrefix = (text: string) => `${text.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;

export class ContactRepository {
  private readonly em: EntityManager;

  constructor(em: EntityManager) {
    this.em = em;
  }

  byId(accountId: string, id: string): Promise<ContactRow | null> {
    return this.em.findOne(Contact, { id, accountId });
  }

  async idByEmail(accountId: string, email: string): Promise<string | null> {
    const [row] = await this.em.execute<{ id: string }[]>(
      'select id from contacts where account_id = ? and lower(email) = lower(?)',
      [accountId, email],
    );
    return row?.id ?? null;
  }

  /** One page in `(created_at, id)` order; every filter has an index behind it. */
  async page(accountId: string, filters: ContactFilters, after: Cursor | null, limit: number): Promise<ContactRow[]> {
    const where = ['account_id = ?'];
    const params: unknown[] = [accountId];
    if (filters.status) {
      where.push('status = ?');
      params.push(filters.status);
    }
    if (filters.tag) {
      where.push('tags @> array[?]::text[]');
      params.push(filters.tag);
    }
    if (filters.email) {
      where.push('lower(email) like ?');
      params.push(likePrefix(filters.email));
    }
    if (filters.q) {
      where.push('(lower(email) like ? or lower(first_name) like ? or lower(last_name) like ?)');
      params.push(likePrefix(filters.q), likePrefix(filters.q), likePrefix(filters.q));
    }
    if (filters.createdAfter) {
      where.push('created_at > ?');
      params.push(filters.createdAfter);
    }
    if (filters.createdBefore) {
      where.push('created_at < ?');
      params.push(filters.createdBefore);
    }
    if (after) {
      where.push('(created_at, id) > (?, ?)');
      params.push(after.at, after.id);
    }
    params.push(limit + 1);
    const rows = await this.em
      .getConnection()
      .execute(`select * from contacts where ${where.join(' and ')} order by created_at, id limit ?`, params);
    return rows.map((row) => this.em.map(Contact, row));
  }

  create(data: Omit<ContactRow, 'createdAt' | 'updatedAt' | 'lastImportId' | 'softBounces'>): ContactRow {
    return this.em.create(Contact, { ...data, lastImportId: null, softBounces: 0 });
  }

  remove(contact: ContactRow): void {
    this.em.remove(contact);
  }

  /** Flushes; a duplicate email answers the id of the contact that has it. */
  async flush(accountId: string, email: string): Promise<{ duplicateOf: string } | null> {
    try {
      await this.em.flush();
      return null;
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      this.em.clear();
      return { duplicateOf: (await this.idByEmail(accountId, email)) ?? 'unknown' };
    }
  }
}

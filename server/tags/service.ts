import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import { MAX_TAG_LENGTH, MAX_TAGS } from '../contacts/rules.ts';
import type { Db } from '../db/kysely.ts';
import type { Transactions } from '../db/transactions.ts';
import { analyzeSoon } from '../db/statistics.ts';
import { normaliseEmail } from '../email.ts';
import { notFound, validationFailed } from '../contract/problem.ts';
import { segmentsCondition } from '../segments/service.ts';

type Schemas = components['schemas'];

/** A page's position: the last tag name shown. */
const encodeCursor = (name: string) => Buffer.from(JSON.stringify(name)).toString('base64url');

function decodeCursor(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    const name: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (typeof name !== 'string' || name.length > MAX_TAG_LENGTH || name.includes('\u0000')) throw new Error('shape');
    return name;
  } catch {
    throw validationFailed([{ pointer: 'query.cursor', detail: 'is not a cursor this API returned' }]);
  }
}

/**
 * The contacts' tag reads and writes, each in whatever transaction `db` is, with the
 * `contact.updated` events of the contacts changed: the contacts' store, handed in by the
 * composition root.
 */
export interface ContactTags {
  /** Tags with how many of the account's contacts carry each, by name, after `after`. */
  tagCounts(db: Db, accountId: string, after: string | null, limit: number): Promise<{ name: string; contacts: number }[]>;
  tagCount(db: Db, accountId: string, tag: string): Promise<number>;
  /** Answers how many contacts changed. */
  renameTag(db: Db, accountId: string, from: string, to: string): Promise<number>;
  /** Answers how many contacts carried the tag. */
  removeTag(db: Db, accountId: string, tag: string): Promise<number>;
  /** On the contacts `selector` (a condition on the contact aliased `c`) matches. */
  retagContacts(
    db: Db,
    accountId: string,
    selector: RawBuilder<SqlBool>,
    change: { add: readonly string[]; remove: readonly string[]; maxTags: number },
  ): Promise<{ matched: number; changed: number }>;
}

/** What bulk tagging may select contacts by: the lists' and segments' stores, handed in by the composition root. */
export interface TagAudiences {
  lists: {
    get(db: Db, accountId: string, id: string): Promise<{ id: string } | null>;
    /** A condition on contacts aliased `c`: on the list, in any status. */
    membersCondition(accountId: string, listId: string): RawBuilder<SqlBool>;
  };
  segments: { byId(db: Db, accountId: string, id: string): Promise<{ id: string } | undefined> };
}

/** Tags are stored trimmed (contacts' writes trim them): a name is looked up the same way. */
const tagName = (name: string) => name.trim();

export class TagService {
  private readonly db: Db;
  private readonly transactions: Transactions;
  private readonly contacts: ContactTags;
  private readonly audiences: TagAudiences;

  constructor(db: Db, transactions: Transactions, contacts: ContactTags, audiences: TagAudiences) {
    this.db = db;
    this.transactions = transactions;
    this.contacts = contacts;
    this.audiences = audiences;
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Schemas['TagCountPage']> {
    const rows = await this.contacts.tagCounts(this.db, accountId, decodeCursor(cursor), limit + 1);
    const hasMore = rows.length > limit;
    const data = rows.slice(0, limit);
    return { data, next_cursor: hasMore ? encodeCursor(data[data.length - 1].name) : null, has_more: hasMore };
  }

  /** Renames (or merges) in one transaction; answers the tag under its new name. */
  async rename(accountId: string, name: string, input: Schemas['TagRename']): Promise<Schemas['TagCount']> {
    const from = tagName(name);
    const to = tagName(input.name);
    if (!to) throw validationFailed([{ pointer: '/name', detail: 'must not be blank' }]);
    const { renamed, tag } = await this.transactions.run(async (trx) => {
      if (from.length > MAX_TAG_LENGTH || !(await this.contacts.tagCount(trx, accountId, from))) throw notFound('tag');
      const renamed = from === to ? 0 : await this.contacts.renameTag(trx, accountId, from, to);
      return { renamed, tag: { name: to, contacts: await this.contacts.tagCount(trx, accountId, to) } };
    });
    analyzeSoon(this.db, ['contacts'], renamed);
    return tag;
  }

  async delete(accountId: string, name: string): Promise<void> {
    const tag = tagName(name);
    const removed = tag.length > MAX_TAG_LENGTH ? 0 : await this.contacts.removeTag(this.db, accountId, tag);
    if (!removed) throw notFound('tag');
    analyzeSoon(this.db, ['contacts'], removed);
  }

  async bulk(accountId: string, input: Schemas['TagBulkRequest']): Promise<Schemas['TagBulkResult']> {
    const add = [...new Set((input.add ?? []).map(tagName).filter(Boolean))];
    const remove = [...new Set((input.remove ?? []).map(tagName).filter(Boolean))];
    if (!add.length && !remove.length) throw validationFailed([{ pointer: '/add', detail: 'give tags to add or to remove' }]);
    const targets = ['contact_ids', 'emails', 'segment_id', 'list_id'] as const;
    const given = targets.filter((t) => input[t] !== undefined);
    if (given.length !== 1) {
      throw validationFailed([
        { pointer: given.length ? `/${given[1]}` : '/contact_ids', detail: 'give exactly one of contact_ids, emails, segment_id or list_id' },
      ]);
    }
    const selector =
      input.contact_ids !== undefined
        ? sql<SqlBool>`c.id = any(${input.contact_ids}::text[])`
        : input.emails !== undefined
          ? sql<SqlBool>`lower(c.email) = any(${input.emails.map((e) => normaliseEmail(e).toLowerCase())}::text[])`
          : input.segment_id !== undefined
            ? await this.segmentSelector(accountId, input.segment_id)
            : await this.listSelector(accountId, input.list_id!);
    const result = await this.transactions.run((trx) =>
      this.contacts.retagContacts(trx, accountId, selector, { add: add.filter((t) => !remove.includes(t)), remove, maxTags: MAX_TAGS }),
    );
    analyzeSoon(this.db, ['contacts'], result.changed);
    return result;
  }

  private async listSelector(accountId: string, listId: string) {
    if (!(await this.audiences.lists.get(this.db, accountId, listId))) throw validationFailed([{ pointer: '/list_id', detail: 'no such list' }]);
    return this.audiences.lists.membersCondition(accountId, listId);
  }

  private async segmentSelector(accountId: string, segmentId: string) {
    // An unknown segment would match nothing: say so instead.
    if (!(await this.audiences.segments.byId(this.db, accountId, segmentId))) throw validationFailed([{ pointer: '/segment_id', detail: 'no such segment' }]);
    return segmentsCondition(this.db, accountId, [segmentId], '/segment_id');
  }
}

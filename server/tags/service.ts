import { sql, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import { MAX_TAG_LENGTH, MAX_TAGS } from '../contacts/rules.ts';
import { removeTag, renameTag, retagContacts, tagCount, tagCounts } from '../contacts/store.ts';
import type { Db } from '../db/kysely.ts';
import { analyzeSoon } from '../db/statistics.ts';
import { normaliseEmail } from '../email.ts';
import { notFound, validationFailed } from '../contract/problem.ts';
import { listStore } from '../lists/store.ts';
import { segmentsCondition } from '../segments/service.ts';
import { segmentStore } from '../segments/store.ts';

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

/** Tags are stored trimmed (contacts' writes trim them): a name is looked up the same way. */
const tagName = (name: string) => name.trim();

export class TagService {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  async list(accountId: string, limit: number, cursor?: string): Promise<Schemas['TagCountPage']> {
    const rows = await tagCounts(this.db, accountId, decodeCursor(cursor), limit + 1);
    const hasMore = rows.length > limit;
    const data = rows.slice(0, limit);
    return { data, next_cursor: hasMore ? encodeCursor(data[data.length - 1].name) : null, has_more: hasMore };
  }

  /** Renames (or merges) in one transaction; answers the tag under its new name. */
  async rename(accountId: string, name: string, input: Schemas['TagRename']): Promise<Schemas['TagCount']> {
    const from = tagName(name);
    const to = tagName(input.name);
    if (!to) throw validationFailed([{ pointer: '/name', detail: 'must not be blank' }]);
    const { renamed, tag } = await this.db.transaction().execute(async (trx) => {
      if (from.length > MAX_TAG_LENGTH || !(await tagCount(trx, accountId, from))) throw notFound('tag');
      const renamed = from === to ? 0 : await renameTag(trx, accountId, from, to);
      return { renamed, tag: { name: to, contacts: await tagCount(trx, accountId, to) } };
    });
    analyzeSoon(this.db, ['contacts'], renamed);
    return tag;
  }

  async delete(accountId: string, name: string): Promise<void> {
    const tag = tagName(name);
    const removed = tag.length > MAX_TAG_LENGTH ? 0 : await removeTag(this.db, accountId, tag);
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
    const result = await this.db
      .transaction()
      .execute((trx) => retagContacts(trx, accountId, selector, { add: add.filter((t) => !remove.includes(t)), remove, maxTags: MAX_TAGS }));
    analyzeSoon(this.db, ['contacts'], result.changed);
    return result;
  }

  private async listSelector(accountId: string, listId: string) {
    if (!(await listStore.get(this.db, accountId, listId))) throw validationFailed([{ pointer: '/list_id', detail: 'no such list' }]);
    return listStore.membersCondition(listId);
  }

  private async segmentSelector(accountId: string, segmentId: string) {
    // An unknown segment would match nothing: say so instead.
    if (!(await segmentStore.byId(this.db, accountId, segmentId))) throw validationFailed([{ pointer: '/segment_id', detail: 'no such segment' }]);
    return segmentsCondition(this.db, accountId, [segmentId], '/segment_id');
  }
}

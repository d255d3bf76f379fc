import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { components } from '../../generated/openapi.d.ts';
import { contactJson } from '../contacts/json.ts';
import { newId } from '../db/ids.ts';
import type { Db } from '../db/kysely.ts';
import { fieldDefinitions, fieldSchema } from '../fields/definitions.ts';
import { schemaOf, type FieldDefinition } from '../fields/rules.ts';
import { decodeCursor, toPage } from '../contract/pagination.ts';
import { notFound, validationFailed } from '../contract/problem.ts';
import { compileRules } from './compiler.ts';
import { MAX_SEGMENTS, type SegmentRule } from './rules.ts';
import { members, segmentStore, type SegmentRecord } from './store.ts';

type Schemas = components['schemas'];
export type SegmentJson = Schemas['Segment'];

export const segmentJson = (s: SegmentRecord): SegmentJson => ({
  id: s.id,
  name: s.name,
  description: s.description,
  rules: s.rules,
  created_at: s.created_at.toISOString(),
  updated_at: s.updated_at.toISOString(),
});

/** The lists that rules may name: the lists' store, handed in by the composition root. */
export interface SegmentLists {
  /** The account's lists among `ids`. */
  some(db: Db, accountId: string, ids: readonly string[]): Promise<Set<string>>;
}

/**
 * The rules as a condition on the contact aliased `c`, read against the account's custom fields
 * now. Rules being written or previewed (`checkLists`) must name the account's lists only: 400 at
 * the `list_id` of another. A saved segment whose list was deleted since reads it as empty.
 */
async function segmentCondition(
  db: Db,
  lists: SegmentLists,
  accountId: string,
  rules: SegmentRule,
  { pointer = '/rules', checkLists = true } = {},
): Promise<RawBuilder<SqlBool>> {
  const { condition, lists: named } = compileRules(rules, { accountId, fields: await fieldSchema(db, accountId), now: new Date() }, pointer);
  if (checkLists && named.length) {
    const found = await lists.some(db, accountId, [...new Set(named.map((l) => l.id))]);
    const errors = named.flatMap((l) => (found.has(l.id) ? [] : [{ pointer: l.pointer, detail: 'no such list' }]));
    if (errors.length) throw validationFailed(errors, 'The segment rules are not valid.');
  }
  return condition;
}

/**
 * Segments' rules with the account's fields and the time they were read: what a campaign's
 * audience keeps so that every piece of it is chosen by the rules of its start, even when a
 * segment or field is edited or deleted while the campaign sends.
 */
export interface FrozenSegments {
  rules: SegmentRule[];
  fields: FieldDefinition[];
  now: string;
}

/** The account's segments among `ids` (others match nothing), as they are now. */
export async function freezeSegments(db: Db, accountId: string, ids: readonly string[]): Promise<FrozenSegments> {
  const found = new Map((await segmentStore.some(db, accountId, ids)).map((s) => [s.id, s]));
  const fields = await fieldDefinitions(db, accountId);
  return { rules: ids.flatMap((id) => found.get(id)?.rules ?? []), fields, now: new Date().toISOString() };
}

/** Contacts in any of the frozen segments; a segment whose rules no longer compile answers 400 at `pointer/<index>`. */
export function frozenSegmentsCondition(frozen: FrozenSegments, accountId: string, pointer: string): RawBuilder<SqlBool> {
  const context = { accountId, fields: schemaOf(frozen.fields), now: new Date(frozen.now) };
  const parts = frozen.rules.map((rules, i) => compileRules(rules, context, `${pointer}/${i}`).condition);
  return parts.length ? sql<SqlBool>`(${sql.join(parts, sql` or `)})` : sql<SqlBool>`false`;
}

/**
 * Contacts in any of the segments (`ids`, the account's; others match nothing), for bulk tagging.
 * A saved segment whose rules no longer fit the fields answers 400 at `pointer/<index>`.
 */
export async function segmentsCondition(db: Db, accountId: string, ids: readonly string[], pointer: string): Promise<RawBuilder<SqlBool>> {
  return frozenSegmentsCondition(await freezeSegments(db, accountId, ids), accountId, pointer);
}

/** 400 at `pointer/<index>` for an id that is not one of the account's segments. */
export async function checkSegmentIds(db: Db, accountId: string, ids: readonly string[] | undefined, pointer: string): Promise<void> {
  if (!ids?.length) return;
  const found = new Set((await segmentStore.some(db, accountId, ids)).map((s) => s.id));
  const errors = ids.flatMap((id, i) => (found.has(id) ? [] : [{ pointer: `${pointer}/${i}`, detail: 'no such segment' }]));
  if (errors.length) throw validationFailed(errors);
}

export class SegmentService {
  private readonly db: Db;
  private readonly lists: SegmentLists;

  constructor(db: Db, lists: SegmentLists) {
    this.db = db;
    this.lists = lists;
  }

  async create(accountId: string, input: Schemas['SegmentCreate']): Promise<SegmentJson> {
    await segmentCondition(this.db, this.lists, accountId, input.rules);
    if ((await segmentStore.count(this.db, accountId)) >= MAX_SEGMENTS) {
      throw validationFailed([{ pointer: '/name', detail: `an account has at most ${MAX_SEGMENTS} segments` }]);
    }
    const segment = await segmentStore.insert(this.db, {
      id: newId('seg'),
      account_id: accountId,
      name: input.name,
      description: input.description ?? null,
      rules: input.rules,
    });
    return segmentJson(segment);
  }

  async list(accountId: string, limit: number, cursor?: string) {
    const rows = await segmentStore.page(this.db, accountId, decodeCursor(cursor), limit);
    return toPage(rows, limit, (s) => ({ at: s.created_at, id: s.id }), segmentJson);
  }

  async get(accountId: string, id: string): Promise<SegmentJson> {
    return segmentJson(await this.load(accountId, id));
  }

  async update(accountId: string, id: string, input: Schemas['SegmentUpdate']): Promise<SegmentJson> {
    await this.load(accountId, id);
    if (input.rules !== undefined) await segmentCondition(this.db, this.lists, accountId, input.rules);
    const updated = await segmentStore.update(this.db, accountId, id, { name: input.name, description: input.description, rules: input.rules });
    if (!updated) throw notFound('segment');
    return segmentJson(updated);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await segmentStore.remove(this.db, accountId, id))) throw notFound('segment');
  }

  async preview(accountId: string, input: Schemas['SegmentPreviewRequest']): Promise<Schemas['SegmentPreview']> {
    const condition = await segmentCondition(this.db, this.lists, accountId, input.rules);
    const size = input.sample_size ?? 10;
    const [count, sample] = await Promise.all([
      members.count(this.db, accountId, condition),
      size ? members.page(this.db, accountId, condition, null, size) : Promise.resolve([]),
    ]);
    return { count, sample: sample.slice(0, size).map(contactJson) };
  }

  async contacts(accountId: string, id: string, limit: number, cursor?: string) {
    const segment = await this.load(accountId, id);
    const after = decodeCursor(cursor);
    const condition = await segmentCondition(this.db, this.lists, accountId, segment.rules, { checkLists: false });
    const rows = await members.page(this.db, accountId, condition, after, limit);
    return toPage(rows, limit, (c) => ({ at: c.createdAt, id: c.id }), contactJson);
  }

  private async load(accountId: string, id: string): Promise<SegmentRecord> {
    const segment = await segmentStore.byId(this.db, accountId, id);
    if (!segment) throw notFound('segment');
    return segment;
  }
}

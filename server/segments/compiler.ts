import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { CONTACT_STATUSES } from '../contacts/rules.ts';
import type { FieldSchema, FieldType } from '../fields/rules.ts';
import { isCalendarDate } from '../fields/rules.ts';
import { isStorableDateTime } from '../contract/timestamps.ts';
import { validationFailed } from '../contract/problem.ts';
import { MEMBER_STATUSES } from '../lists/entities.ts';
import { MAX_CONDITIONS, MAX_DEPTH, MAX_LIST_VALUES, MAX_TEXT_VALUE, type EngagementKind, type SegmentOperator, type SegmentRule } from './rules.ts';
import { likePrefix } from '../db/like.ts';

/**
 * Compiles a segment's rule tree into one SQL condition on the contact aliased `c`. Every value
 * the client gives is a bound parameter; the only identifiers are the ones written here. A rule
 * that does not fit (shape, field, operator for the field's type, value) answers 400 with the
 * JSON pointer of the rule at fault.
 */

export interface CompileContext {
  accountId: string;
  /** The account's custom fields: a key they define is read as its type. */
  fields: FieldSchema;
  /** When "the last N days" ends. */
  now: Date;
  /**
   * In an automation's condition: engagement with the email of an earlier step of the enrolment
   * (`{"step_id", "engagement"}`), as a condition; answers null for a step that is not such a step.
   */
  stepEngagement?: (stepId: string, engagement: EngagementKind) => RawBuilder<SqlBool> | null;
}

type Condition = RawBuilder<SqlBool>;

const DAY_MS = 86_400_000;

class RuleError extends Error {
  readonly pointer: string;
  constructor(pointer: string, detail: string) {
    super(detail);
    this.pointer = pointer;
  }
}

/** A list a membership condition names, for the caller to check is the account's. */
export interface ListReference {
  id: string;
  /** The JSON pointer of its `list_id`. */
  pointer: string;
}

export interface CompiledRules {
  condition: Condition;
  lists: ListReference[];
}

/** The rules as one condition, and the lists they name; throws the 400 of the first rule at fault. */
export function compileRules(rules: SegmentRule, context: CompileContext, pointer = '/rules'): CompiledRules {
  try {
    const compiler = new Compiler(context);
    const condition = compiler.rule(rules, pointer, 1);
    return { condition, lists: compiler.lists };
  } catch (error) {
    if (error instanceof RuleError) throw validationFailed([{ pointer: error.pointer, detail: error.message }], 'The segment rules are not valid.');
    throw error;
  }
}

const KEYS_OF_GROUP = new Set(['all', 'any']);
const KEYS_OF_CONDITION = new Set(['field', 'operator', 'value']);
const KEYS_OF_ENGAGEMENT = new Set(['engagement', 'campaign_id', 'within_days', 'at_least']);
const KEYS_OF_MEMBERSHIP = new Set(['membership', 'list_id', 'list_status']);
const ENGAGEMENT_KINDS = new Set<string>(['opened', 'not_opened', 'clicked', 'not_clicked', 'received']);

/** What a field is read as. */
type Kind = 'text' | 'status' | 'tags' | 'timestamp' | FieldType;

const OPERATORS: Record<Kind, readonly SegmentOperator[]> = {
  text: ['equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'is_set', 'is_not_set'],
  choice: ['equals', 'not_equals', 'in', 'not_in', 'is_set', 'is_not_set'],
  status: ['equals', 'not_equals', 'in', 'not_in'],
  tags: ['contains', 'not_contains', 'in', 'not_in', 'is_set', 'is_not_set'],
  number: ['equals', 'not_equals', 'in', 'not_in', 'greater_than', 'less_than', 'between', 'is_set', 'is_not_set'],
  timestamp: ['before', 'after', 'between', 'within_last_days'],
  date: ['equals', 'before', 'after', 'between', 'within_last_days', 'is_set', 'is_not_set'],
  boolean: ['equals', 'is_set', 'is_not_set'],
};

const COLUMNS = { email: 'text', first_name: 'text', last_name: 'text', status: 'status', tags: 'tags', created_at: 'timestamp' } as const;
type Column = keyof typeof COLUMNS;
const isColumn = (field: string): field is Column => Object.hasOwn(COLUMNS, field);

/** Any key: it is a bound parameter, never part of the SQL text. */
const ATTRIBUTE = /^attributes\.(.+)$/s;

const and = (parts: Condition[]): Condition => sql<SqlBool>`(${sql.join(parts, sql` and `)})`;
const or = (parts: Condition[]): Condition => sql<SqlBool>`(${sql.join(parts, sql` or `)})`;
const not = (part: Condition): Condition => sql<SqlBool>`(not ${part})`;

/** A bound of a time condition: `YYYY-MM-DD` covers its whole UTC day; an RFC 3339 instant, its millisecond. */
interface TimeBound {
  start: Date;
  /** Exclusive. */
  end: Date;
}

class Compiler {
  private readonly context: CompileContext;
  private conditions = 0;
  readonly lists: ListReference[] = [];

  constructor(context: CompileContext) {
    this.context = context;
  }

  rule(given: SegmentRule, pointer: string, depth: number): Condition {
    if (given === null || typeof given !== 'object' || Array.isArray(given))
      throw new RuleError(pointer, 'must be a group, a condition or an engagement condition');
    // A key set to null is left out: some generated SDKs send every property of the model.
    const rule = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== null)) as SegmentRule;
    const keys = Object.keys(rule);
    if (keys.some((k) => KEYS_OF_GROUP.has(k))) return this.group(rule, keys, pointer, depth);
    if (++this.conditions > MAX_CONDITIONS) throw new RuleError(pointer, `a segment has at most ${MAX_CONDITIONS} conditions`);
    if (rule.step_id !== undefined) return this.stepEngagement(rule, keys, pointer);
    if (rule.engagement !== undefined) {
      const stray = keys.find((k) => !KEYS_OF_ENGAGEMENT.has(k));
      if (stray) throw new RuleError(`${pointer}/${stray}`, 'is not part of an engagement condition');
      return this.engagement(rule, pointer);
    }
    if (rule.membership !== undefined) {
      const stray = keys.find((k) => !KEYS_OF_MEMBERSHIP.has(k));
      if (stray) throw new RuleError(`${pointer}/${stray}`, 'is not part of a membership condition');
      return this.membership(rule, pointer);
    }
    if (rule.field === undefined) throw new RuleError(pointer, 'must have `all`, `any`, `field`, `engagement` or `membership`');
    if (typeof rule.field !== 'string') throw new RuleError(`${pointer}/field`, 'must be a string');
    const stray = keys.find((k) => !KEYS_OF_CONDITION.has(k));
    if (stray) throw new RuleError(`${pointer}/${stray}`, 'is not part of a field condition');
    if (rule.operator === undefined) throw new RuleError(`${pointer}/operator`, 'is required with `field`');
    return this.condition(rule.field, rule.operator, rule.value, pointer);
  }

  private group(rule: SegmentRule, keys: string[], pointer: string, depth: number): Condition {
    if (keys.length !== 1) throw new RuleError(pointer, 'a group has either `all` or `any` and nothing else');
    if (depth > MAX_DEPTH) throw new RuleError(pointer, `groups nest at most ${MAX_DEPTH} deep`);
    const key = rule.all !== undefined ? 'all' : 'any';
    const children = rule[key];
    if (!Array.isArray(children) || !children.length) throw new RuleError(`${pointer}/${key}`, 'must be a list of at least one rule');
    const parts = children.map((child, i) => this.rule(child as SegmentRule, `${pointer}/${key}/${i}`, depth + 1));
    return key === 'all' ? and(parts) : or(parts);
  }

  // ---- Conditions on the contact's own data

  private condition(field: string, operator: SegmentOperator, value: unknown, pointer: string): Condition {
    if (isColumn(field)) {
      const kind = COLUMNS[field];
      this.checkOperator(kind, operator, pointer, field);
      const column = sql.ref(`c.${field}`);
      switch (kind) {
        case 'text':
          return this.text(sql`lower(${column})`, operator, value, pointer);
        case 'status':
          return this.status(operator, value, pointer);
        case 'tags':
          return this.tags(operator, value, pointer);
        case 'timestamp':
          return this.timestamp(operator, value, pointer);
      }
    }
    const match = ATTRIBUTE.exec(field);
    if (!match) {
      throw new RuleError(`${pointer}/field`, 'must be email, first_name, last_name, status, tags, created_at or attributes.<key>');
    }
    const key = match[1];
    const defined = this.context.fields.get(key);
    const kind: Kind = defined?.type ?? inferKind(operator, value);
    this.checkOperator(kind, operator, pointer, field);
    const json = sql`(c.attributes -> ${key})`;
    const asText = sql`(c.attributes ->> ${key})`;
    const exact = this.containment(kind, key, operator, value, pointer);
    if (exact) return exact;
    if (operator === 'is_set') return sql<SqlBool>`(coalesce(${asText}, '') <> '')`;
    if (operator === 'is_not_set') return sql<SqlBool>`(coalesce(${asText}, '') = '')`;
    switch (kind) {
      case 'text':
        return this.text(sql`lower(${asText})`, operator, value, pointer);
      case 'choice': {
        const options = defined?.options ?? [];
        const given = operator === 'in' || operator === 'not_in' ? this.list(value, pointer, 'string') : [this.string(value, `${pointer}/value`)];
        const unknown = given.find((v) => !options.includes(v));
        if (unknown !== undefined) throw new RuleError(`${pointer}/value`, `"${unknown}" is not an option of ${key} (${options.join(', ')})`);
        return this.text(asText, operator, value, pointer, false);
      }
      case 'number':
        return this.number(sql`(case when jsonb_typeof(${json}) = 'number' then (${json})::numeric end)`, operator, value, pointer);
      case 'date':
        return this.date(sql`(case when ${asText} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' then ${asText} end)`, operator, value, pointer);
      case 'boolean': {
        if (typeof value !== 'boolean') throw new RuleError(`${pointer}/value`, 'must be true or false');
        return sql<SqlBool>`(${json} = ${JSON.stringify(value)}::jsonb)`;
      }
      default:
        throw new RuleError(`${pointer}/field`, `cannot be compared as ${kind}`);
    }
  }

  /**
   * `equals` on a choice, number or boolean as `attributes @> {"key": value}`, which the
   * contacts' GIN index (jsonb_path_ops) can answer instead of every contact's attributes being
   * read. Containment matches a value of the same JSON type only, as these comparisons do; text
   * compares without case, which containment cannot. `in` stays a filter: an index scan per
   * value cost more than it saved on the benchmark's common values (bench/README.md).
   */
  private containment(kind: Kind, key: string, operator: SegmentOperator, value: unknown, pointer: string): Condition | null {
    if (operator !== 'equals' || (kind !== 'choice' && kind !== 'number' && kind !== 'boolean')) return null;
    const at = `${pointer}/value`;
    if (kind === 'number' && (typeof value !== 'number' || !Number.isFinite(value))) throw new RuleError(at, 'must be a number');
    if (kind === 'boolean' && typeof value !== 'boolean') throw new RuleError(at, 'must be true or false');
    if (kind === 'choice') {
      const options = this.context.fields.get(key)?.options ?? [];
      const given = this.string(value, at);
      if (!options.includes(given)) throw new RuleError(at, `"${given}" is not an option of ${key} (${options.join(', ')})`);
    }
    return sql<SqlBool>`(c.attributes @> ${JSON.stringify({ [key]: value })}::jsonb)`;
  }

  private checkOperator(kind: Kind, operator: SegmentOperator, pointer: string, field: string): void {
    if (!OPERATORS[kind].includes(operator)) {
      throw new RuleError(`${pointer}/operator`, `${field} (${kind}) takes ${OPERATORS[kind].join(', ')}; not ${operator}`);
    }
  }

  private string(value: unknown, at: string): string {
    if (typeof value !== 'string' || !value.length) throw new RuleError(at, 'must be a non-empty string');
    if (value.length > MAX_TEXT_VALUE) throw new RuleError(at, `must be at most ${MAX_TEXT_VALUE} characters`);
    return value;
  }

  private list<T extends 'string' | 'number'>(value: unknown, pointer: string, type: T): (T extends 'string' ? string : number)[] {
    if (!Array.isArray(value) || !value.length) throw new RuleError(`${pointer}/value`, 'must be a list of at least one value');
    if (value.length > MAX_LIST_VALUES) throw new RuleError(`${pointer}/value`, `must hold at most ${MAX_LIST_VALUES} values`);
    value.forEach((item, i) => {
      if (type === 'string') this.string(item, `${pointer}/value/${i}`);
      else if (typeof item !== 'number' || !Number.isFinite(item)) throw new RuleError(`${pointer}/value/${i}`, 'must be a number');
    });
    return value as (T extends 'string' ? string : number)[];
  }

  /** `lowered` is the text as compared: lower-cased, unless `caseless` is false (choices match exactly). */
  private text(lowered: RawBuilder<unknown>, operator: SegmentOperator, value: unknown, pointer: string, caseless = true): Condition {
    const fold = (s: string) => (caseless ? s.toLowerCase() : s);
    switch (operator) {
      case 'is_set':
        return sql<SqlBool>`(coalesce(${lowered}, '') <> '')`;
      case 'is_not_set':
        return sql<SqlBool>`(coalesce(${lowered}, '') = '')`;
      case 'in':
      case 'not_in': {
        const values = this.list(value, pointer, 'string').map(fold);
        const test = sql<SqlBool>`coalesce(${lowered} = any(${values}::text[]), false)`;
        return operator === 'in' ? test : not(test);
      }
    }
    const given = fold(this.string(value, `${pointer}/value`));
    switch (operator) {
      case 'equals':
        return sql<SqlBool>`(${lowered} = ${given})`;
      case 'not_equals':
        return sql<SqlBool>`(${lowered} is distinct from ${given})`;
      case 'contains':
        return sql<SqlBool>`(strpos(${lowered}, ${given}) > 0)`;
      case 'not_contains':
        return sql<SqlBool>`(coalesce(strpos(${lowered}, ${given}), 0) = 0)`;
      case 'starts_with':
        // As LIKE with a literal prefix, the email and name indexes (text_pattern_ops) serve it.
        return sql<SqlBool>`(${lowered} like ${likePrefix(given)})`;
      default:
        throw new RuleError(`${pointer}/operator`, `does not apply to text: ${operator}`);
    }
  }

  private status(operator: SegmentOperator, value: unknown, pointer: string): Condition {
    const check = (s: unknown, at: string) => {
      if (typeof s !== 'string' || !(CONTACT_STATUSES as readonly string[]).includes(s)) {
        throw new RuleError(at, `must be one of ${CONTACT_STATUSES.join(', ')}`);
      }
      return s;
    };
    if (operator === 'in' || operator === 'not_in') {
      const values = this.list(value, pointer, 'string').map((s, i) => check(s, `${pointer}/value/${i}`));
      return operator === 'in' ? sql<SqlBool>`(c.status = any(${values}::text[]))` : sql<SqlBool>`(c.status <> all(${values}::text[]))`;
    }
    const status = check(value, `${pointer}/value`);
    return operator === 'equals' ? sql<SqlBool>`(c.status = ${status})` : sql<SqlBool>`(c.status <> ${status})`;
  }

  private tags(operator: SegmentOperator, value: unknown, pointer: string): Condition {
    switch (operator) {
      case 'is_set':
        return sql<SqlBool>`(cardinality(c.tags) > 0)`;
      case 'is_not_set':
        return sql<SqlBool>`(cardinality(c.tags) = 0)`;
      case 'contains':
        return sql<SqlBool>`(c.tags @> array[${this.string(value, `${pointer}/value`)}]::text[])`;
      case 'not_contains':
        return not(sql<SqlBool>`(c.tags @> array[${this.string(value, `${pointer}/value`)}]::text[])`);
      case 'in':
        return sql<SqlBool>`(c.tags && ${this.list(value, pointer, 'string')}::text[])`;
      default:
        return not(sql<SqlBool>`(c.tags && ${this.list(value, pointer, 'string')}::text[])`);
    }
  }

  private number(n: RawBuilder<unknown>, operator: SegmentOperator, value: unknown, pointer: string): Condition {
    const one = (v: unknown, at: string): number => {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new RuleError(at, 'must be a number');
      return v;
    };
    switch (operator) {
      case 'in':
        return sql<SqlBool>`coalesce(${n} = any(${this.list(value, pointer, 'number')}::numeric[]), false)`;
      case 'not_in':
        return not(sql<SqlBool>`coalesce(${n} = any(${this.list(value, pointer, 'number')}::numeric[]), false)`);
      case 'between': {
        const [low, high] = this.pair(value, pointer).map((v, i) => one(v, `${pointer}/value/${i}`));
        return sql<SqlBool>`(${n} between ${low}::numeric and ${high}::numeric)`;
      }
    }
    const given = one(value, `${pointer}/value`);
    switch (operator) {
      case 'equals':
        return sql<SqlBool>`(${n} = ${given}::numeric)`;
      case 'not_equals':
        return sql<SqlBool>`(${n} is distinct from ${given}::numeric)`;
      case 'greater_than':
        return sql<SqlBool>`(${n} > ${given}::numeric)`;
      default:
        return sql<SqlBool>`(${n} < ${given}::numeric)`;
    }
  }

  private pair(value: unknown, pointer: string): [unknown, unknown] {
    if (!Array.isArray(value) || value.length !== 2) throw new RuleError(`${pointer}/value`, 'must be [low, high]');
    return [value[0], value[1]];
  }

  private days(value: unknown, pointer: string): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 36_500) {
      throw new RuleError(`${pointer}/value`, 'must be a whole number of days from 1 to 36500');
    }
    return value;
  }

  /** `created_at`: a timestamp column, served by the account's (created_at, id) index. */
  private timestamp(operator: SegmentOperator, value: unknown, pointer: string): Condition {
    const at = sql.ref('c.created_at');
    switch (operator) {
      case 'within_last_days':
        return sql<SqlBool>`(${at} >= ${new Date(this.context.now.getTime() - this.days(value, pointer) * DAY_MS)})`;
      case 'before':
        return sql<SqlBool>`(${at} < ${this.bound(value, `${pointer}/value`).start})`;
      case 'after':
        return sql<SqlBool>`(${at} >= ${this.bound(value, `${pointer}/value`).end})`;
      default: {
        const [low, high] = this.pair(value, pointer).map((v, i) => this.bound(v, `${pointer}/value/${i}`));
        if (low.start >= high.end) throw new RuleError(`${pointer}/value`, 'the low bound must come before the high one');
        return sql<SqlBool>`(${at} >= ${low.start} and ${at} < ${high.end})`;
      }
    }
  }

  private bound(value: unknown, at: string): TimeBound {
    if (typeof value === 'string' && isCalendarDate(value)) {
      const start = new Date(`${value}T00:00:00Z`);
      return { start, end: new Date(start.getTime() + DAY_MS) };
    }
    if (typeof value === 'string' && isStorableDateTime(value)) {
      const start = new Date(value.toUpperCase().replace(' ', 'T'));
      return { start, end: new Date(start.getTime() + 1) };
    }
    throw new RuleError(at, 'must be a date (YYYY-MM-DD) or an RFC 3339 timestamp');
  }

  /** A date field, held as `YYYY-MM-DD` text: compared as text, which sorts as the days do. */
  private date(day: RawBuilder<unknown>, operator: SegmentOperator, value: unknown, pointer: string): Condition {
    const one = (v: unknown, at: string): string => {
      if (typeof v !== 'string' || !isCalendarDate(v)) throw new RuleError(at, 'must be a date written YYYY-MM-DD');
      return v;
    };
    const today = this.context.now.toISOString().slice(0, 10);
    switch (operator) {
      case 'within_last_days': {
        const since = new Date(this.context.now.getTime() - this.days(value, pointer) * DAY_MS).toISOString().slice(0, 10);
        return sql<SqlBool>`(${day} between ${since} and ${today})`;
      }
      case 'between': {
        const [low, high] = this.pair(value, pointer).map((v, i) => one(v, `${pointer}/value/${i}`));
        return sql<SqlBool>`(${day} between ${low} and ${high})`;
      }
      case 'equals':
        return sql<SqlBool>`(${day} = ${one(value, `${pointer}/value`)})`;
      case 'before':
        return sql<SqlBool>`(${day} < ${one(value, `${pointer}/value`)})`;
      default:
        return sql<SqlBool>`(${day} > ${one(value, `${pointer}/value`)})`;
    }
  }

  // ---- Engagement: the tracking tables and the messages sent

  private stepEngagement(rule: SegmentRule, keys: string[], pointer: string): Condition {
    const { stepEngagement } = this.context;
    if (!stepEngagement) throw new RuleError(`${pointer}/step_id`, "is part of an automation's condition only");
    const stray = keys.find((k) => k !== 'step_id' && k !== 'engagement');
    if (stray) throw new RuleError(`${pointer}/${stray}`, 'is not part of a step engagement condition');
    if (typeof rule.step_id !== 'string') throw new RuleError(`${pointer}/step_id`, 'must be a step id');
    if (rule.engagement === undefined || !ENGAGEMENT_KINDS.has(rule.engagement))
      throw new RuleError(`${pointer}/engagement`, 'must be opened, not_opened, clicked, not_clicked or received');
    const condition = stepEngagement(rule.step_id, rule.engagement);
    if (!condition) throw new RuleError(`${pointer}/step_id`, 'must name a send_email step of this automation');
    return condition;
  }

  private engagement(rule: SegmentRule, pointer: string): Condition {
    const { engagement, campaign_id: campaignId, within_days: withinDays, at_least: atLeast } = rule;
    const { accountId, now } = this.context;
    if (withinDays !== undefined && (!Number.isInteger(withinDays) || withinDays < 1 || withinDays > 3650)) {
      throw new RuleError(`${pointer}/within_days`, 'must be a whole number of days from 1 to 3650');
    }
    if (campaignId !== undefined && (typeof campaignId !== 'string' || !campaignId.length || campaignId.length > 64)) {
      throw new RuleError(`${pointer}/campaign_id`, 'must be a campaign id');
    }
    const since = withinDays === undefined ? null : new Date(now.getTime() - withinDays * DAY_MS);
    if (engagement === 'received') {
      const count = atLeast ?? 1;
      if (!Number.isInteger(count) || count < 1 || count > 100_000) throw new RuleError(`${pointer}/at_least`, 'must be a whole number from 1 to 100000');
      // One grouped pass over the account's messages, joined as a set: a count per contact would probe each.
      return sql<SqlBool>`(c.id in (select m.contact_id from messages m where m.account_id = ${accountId} and m.sent_at is not null and m.contact_id is not null
        ${campaignId === undefined ? sql`` : sql`and m.campaign_id = ${campaignId}`}
        ${since === null ? sql`` : sql`and m.sent_at >= ${since}`}
        group by m.contact_id having count(*) >= ${count}))`;
    }
    if (atLeast !== undefined) throw new RuleError(`${pointer}/at_least`, 'applies to `received` only');
    const table = engagement === 'opened' || engagement === 'not_opened' ? sql.table('opens') : sql.table('clicks');
    // By the contact, on (contact_id, occurred_at); the account too, so that under Citus the
    // subquery stays on the contact's shard (as a value: Citus refuses an OR of subqueries
    // correlated on account_id beside the audience's NOT EXISTS). Without a window, a message's
    // first open (click) alone answers: one index entry per message.
    const happened = sql<SqlBool>`exists (select 1 from ${table} e where e.contact_id = c.id and e.account_id = ${accountId}
      ${campaignId === undefined ? sql`` : sql`and e.campaign_id = ${campaignId}`}
      ${since === null ? sql`and e.is_first` : sql`and e.occurred_at >= ${since}`})`;
    switch (engagement) {
      case 'opened':
      case 'clicked':
        return happened;
      case 'not_opened':
      case 'not_clicked':
        return not(happened);
      default:
        throw new RuleError(`${pointer}/engagement`, 'must be opened, not_opened, clicked, not_clicked or received');
    }
  }

  // ---- List membership: the list's members, by the (list_id, contact_id) primary key

  private membership(rule: SegmentRule, pointer: string): Condition {
    const { membership, list_id: listId, list_status: status } = rule;
    if (membership !== 'member' && membership !== 'not_member') throw new RuleError(`${pointer}/membership`, 'must be member or not_member');
    if (typeof listId !== 'string' || !listId.length || listId.length > 64) throw new RuleError(`${pointer}/list_id`, 'must be a list id');
    if (status !== undefined && !(MEMBER_STATUSES as readonly string[]).includes(status)) {
      throw new RuleError(`${pointer}/list_status`, `must be one of ${MEMBER_STATUSES.join(', ')}`);
    }
    this.lists.push({ id: listId, pointer: `${pointer}/list_id` });
    const on = sql<SqlBool>`exists (select 1 from list_members m where m.list_id = ${listId} and m.contact_id = c.id and m.account_id = ${this.context.accountId}
      ${status === undefined ? sql`` : sql`and m.status = ${status}`})`;
    return membership === 'member' ? on : not(on);
  }
}

/** What an attribute key no custom field defines is read as, from the condition itself. */
function inferKind(operator: SegmentOperator, value: unknown): Kind {
  if (operator === 'greater_than' || operator === 'less_than') return 'number';
  if (operator === 'before' || operator === 'after' || operator === 'within_last_days') return 'date';
  const sample: unknown = Array.isArray(value) ? (value as unknown[])[0] : value;
  if (typeof sample === 'number') return 'number';
  if (typeof sample === 'boolean') return 'boolean';
  if (operator === 'between' && typeof sample === 'string') return 'date';
  return 'text';
}

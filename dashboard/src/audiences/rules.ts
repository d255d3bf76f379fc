/**
 * The segment builder's model and its translation to and from the API's `SegmentRule`: a root
 * group of conditions and groups (one level of nesting), values typed from the field they read.
 */
import type { components } from '@sendline/sdk';

export type SegmentRule = components['schemas']['SegmentRule'];
type Operator = components['schemas']['SegmentOperator'];
export type Engagement = components['schemas']['EngagementKind'];
export type Membership = components['schemas']['MembershipKind'];
export type MemberStatus = components['schemas']['ListMemberStatus'];
type Field = components['schemas']['ContactField'];

export type Kind = 'text' | 'choice' | 'number' | 'date' | 'boolean' | 'status' | 'tags' | 'created_at';

export interface Condition {
  type: 'condition';
  field: string;
  operator: Operator;
  value: string;
}
export interface EngagementRow {
  type: 'engagement';
  engagement: Engagement;
  campaign_id: string;
  within_days: string;
  at_least: string;
}
export interface MembershipRow {
  type: 'membership';
  membership: Membership;
  list_id: string;
  list_status: MemberStatus | '';
}
export interface Group {
  type: 'group';
  match: 'all' | 'any';
  rules: Row[];
}
export type Row = Condition | EngagementRow | MembershipRow | Group;

const TEXT: Operator[] = ['equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'is_set', 'is_not_set'];
export const OPERATORS: Record<Kind, Operator[]> = {
  text: TEXT,
  choice: ['equals', 'not_equals', 'in', 'not_in', 'is_set', 'is_not_set'],
  status: ['equals', 'not_equals', 'in', 'not_in'],
  tags: ['contains', 'not_contains', 'in', 'not_in', 'is_set', 'is_not_set'],
  number: ['equals', 'not_equals', 'in', 'not_in', 'greater_than', 'less_than', 'between', 'is_set', 'is_not_set'],
  created_at: ['before', 'after', 'between', 'within_last_days', 'is_set', 'is_not_set'],
  date: ['equals', 'before', 'after', 'between', 'within_last_days', 'is_set', 'is_not_set'],
  boolean: ['equals', 'is_set', 'is_not_set'],
};
export const OPERATOR_LABELS: Record<Operator, string> = {
  equals: 'is',
  not_equals: 'is not',
  in: 'is one of',
  not_in: 'is none of',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  greater_than: 'is greater than',
  less_than: 'is less than',
  between: 'is between',
  is_set: 'is set',
  is_not_set: 'is not set',
  before: 'is before',
  after: 'is after',
  within_last_days: 'is within the last (days)',
};
export const ENGAGEMENTS: Record<Engagement, string> = {
  opened: 'opened a campaign',
  not_opened: 'did not open',
  clicked: 'clicked in a campaign',
  not_clicked: 'did not click',
  received: 'received at least',
};
export const MEMBERSHIPS: Record<Membership, string> = { member: 'is on the list', not_member: 'is not on the list' };
export const MEMBER_STATUSES: MemberStatus[] = ['subscribed', 'unconfirmed', 'unsubscribed'];

export interface FieldChoice {
  value: string;
  label: string;
  kind: Kind;
  options: string[];
}

/** The fields a condition can read: the contact's own, then the account's custom fields. */
export function fieldChoices(custom: Field[]): FieldChoice[] {
  return [
    { value: 'email', label: 'Email', kind: 'text', options: [] },
    { value: 'first_name', label: 'First name', kind: 'text', options: [] },
    { value: 'last_name', label: 'Last name', kind: 'text', options: [] },
    { value: 'status', label: 'Status', kind: 'status', options: ['subscribed', 'unsubscribed', 'bounced', 'complained'] },
    { value: 'tags', label: 'Tags', kind: 'tags', options: [] },
    { value: 'created_at', label: 'Added on', kind: 'created_at', options: [] },
    ...custom.map((field) => ({ value: `attributes.${field.key}`, label: field.label, kind: field.type, options: field.options })),
  ];
}

export const kindOf = (choices: FieldChoice[], field: string): FieldChoice =>
  choices.find((choice) => choice.value === field) ?? { value: field, label: field, kind: 'text', options: [] };

export const needsValue = (operator: Operator) => operator !== 'is_set' && operator !== 'is_not_set';
const listed = (operator: Operator) => operator === 'in' || operator === 'not_in' || operator === 'between';

function typed(kind: Kind, text: string): string | number | boolean {
  const trimmed = text.trim();
  if (kind === 'number') return Number(trimmed);
  if (kind === 'boolean') return trimmed === 'true';
  return trimmed;
}

/** Why a row cannot be sent yet, or null when it is complete. */
function incomplete(row: Row, choices: FieldChoice[]): string | null {
  if (row.type === 'group') return row.rules.length === 0 ? 'A group needs a condition.' : (row.rules.map((r) => incomplete(r, choices)).find(Boolean) ?? null);
  if (row.type === 'engagement') return null;
  if (row.type === 'membership') return row.list_id ? null : 'Choose a list.';
  if (!needsValue(row.operator)) return null;
  const kind = kindOf(choices, row.field).kind;
  const parts = listed(row.operator)
    ? row.value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
    : [row.value.trim()];
  if (!parts.length || parts.some((part) => part === '')) return `Give a value for ${kindOf(choices, row.field).label}.`;
  if (row.operator === 'between' && parts.length !== 2) return 'Between takes two values, separated by a comma.';
  if ((kind === 'number' || row.operator === 'within_last_days') && parts.some((part) => !Number.isFinite(Number(part))))
    return `${kindOf(choices, row.field).label} takes a number.`;
  return null;
}

export function toRule(row: Row, choices: FieldChoice[]): SegmentRule {
  if (row.type === 'group') return { [row.match]: row.rules.map((r) => toRule(r, choices)) };
  if (row.type === 'engagement') {
    return {
      engagement: row.engagement,
      ...(row.campaign_id ? { campaign_id: row.campaign_id } : {}),
      ...(row.within_days ? { within_days: Number(row.within_days) } : {}),
      ...(row.engagement === 'received' ? { at_least: Number(row.at_least || 1) } : {}),
    };
  }
  if (row.type === 'membership') return { membership: row.membership, list_id: row.list_id, ...(row.list_status ? { list_status: row.list_status } : {}) };
  const rule: SegmentRule = { field: row.field, operator: row.operator };
  if (!needsValue(row.operator)) return rule;
  const kind = row.operator === 'within_last_days' ? 'number' : kindOf(choices, row.field).kind;
  rule.value = listed(row.operator)
    ? row.value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean)
        .map((part) => typed(kind, part))
    : typed(kind, row.value);
  return rule;
}

/** The API's rules, or why the builder's rows are not complete yet. */
export function compile(root: Group, choices: FieldChoice[]): { rules: SegmentRule } | { problem: string } {
  const problem = incomplete(root, choices);
  return problem ? { problem } : { rules: toRule(root, choices) };
}

const scalar = (value: unknown) => (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '');
const str = (value: unknown) => (Array.isArray(value) ? value.map(scalar).join(', ') : scalar(value));

/** Stored rules back into rows; the root is always a group. */
export function fromRule(rule: SegmentRule): Row {
  for (const match of ['all', 'any'] as const) {
    const rules = rule[match];
    if (rules) return { type: 'group', match, rules: rules.map((r) => fromRule(r as SegmentRule)) };
  }
  if (rule.engagement) {
    return {
      type: 'engagement',
      engagement: rule.engagement,
      campaign_id: rule.campaign_id ?? '',
      within_days: str(rule.within_days),
      at_least: str(rule.at_least),
    };
  }
  if (rule.membership) return { type: 'membership', membership: rule.membership, list_id: rule.list_id ?? '', list_status: rule.list_status ?? '' };
  return { type: 'condition', field: rule.field ?? 'email', operator: rule.operator ?? 'equals', value: str(rule.value) };
}

export function rootOf(rule: SegmentRule | undefined): Group {
  const row = rule ? fromRule(rule) : null;
  if (row?.type === 'group') return row;
  return { type: 'group', match: 'all', rules: row ? [row] : [newCondition()] };
}

export const newCondition = (): Condition => ({ type: 'condition', field: 'tags', operator: 'contains', value: '' });
export const newEngagement = (): EngagementRow => ({ type: 'engagement', engagement: 'opened', campaign_id: '', within_days: '30', at_least: '' });
export const newMembership = (): MembershipRow => ({ type: 'membership', membership: 'member', list_id: '', list_status: '' });

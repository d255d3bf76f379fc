import { describe, expect, it } from 'vitest';
import { statement } from '../db/kysely.ts';
import { schemaOf } from '../fields/rules.ts';
import { Problem } from '../contract/problem.ts';
import { compileRules } from './compiler.ts';
import type { SegmentRule } from './rules.ts';

const context = {
  accountId: 'acc_1',
  fields: schemaOf([
    { key: 'plan', type: 'choice', options: ['free', 'pro'] },
    { key: 'score', type: 'number', options: [] },
    { key: 'renews', type: 'date', options: [] },
    { key: 'beta', type: 'boolean', options: [] },
    { key: 'city', type: 'text', options: [] },
  ]),
  now: new Date('2026-11-24T12:00:00Z'),
};

const compiled = (rules: SegmentRule) => compileRules(rules, context).condition.compile(statement);

function refusal(rules: unknown): { pointer: string; detail: string } {
  try {
    compileRules(rules as SegmentRule, context);
  } catch (error) {
    if (error instanceof Problem && error.status === 400 && error.errors?.length) return error.errors[0];
    throw error;
  }
  throw new Error(`compiled: ${JSON.stringify(rules)}`);
}

/** A marker no SQL the compiler writes contains: a value must only ever be a parameter. */
const MARK = 'zqmarkerzq';

/** Each operator each kind of field takes, with a value carrying the marker where it is text. */
const CASES: [string, string, unknown][] = [
  ['email', 'equals', MARK],
  ['email', 'not_equals', MARK],
  ['email', 'in', [MARK, 'b']],
  ['email', 'not_in', [MARK]],
  ['email', 'contains', MARK],
  ['email', 'not_contains', MARK],
  ['email', 'starts_with', MARK],
  ['first_name', 'is_set', undefined],
  ['last_name', 'is_not_set', undefined],
  ['status', 'equals', 'subscribed'],
  ['status', 'not_equals', 'bounced'],
  ['status', 'in', ['subscribed']],
  ['status', 'not_in', ['complained']],
  ['tags', 'contains', MARK],
  ['tags', 'not_contains', MARK],
  ['tags', 'in', [MARK]],
  ['tags', 'not_in', [MARK]],
  ['tags', 'is_set', undefined],
  ['tags', 'is_not_set', undefined],
  ['created_at', 'before', '2026-01-01'],
  ['created_at', 'after', '2026-01-01T10:00:00+02:00'],
  ['created_at', 'between', ['2026-01-01', '2026-02-01']],
  ['created_at', 'within_last_days', 30],
  ['attributes.city', 'equals', MARK],
  ['attributes.city', 'starts_with', MARK],
  ['attributes.plan', 'in', ['free', 'pro']],
  ['attributes.score', 'equals', 1],
  ['attributes.score', 'not_equals', 1],
  ['attributes.score', 'in', [1, 2]],
  ['attributes.score', 'not_in', [1]],
  ['attributes.score', 'greater_than', 1.5],
  ['attributes.score', 'less_than', -1],
  ['attributes.score', 'between', [1, 2]],
  ['attributes.score', 'is_set', undefined],
  ['attributes.renews', 'equals', '2026-01-01'],
  ['attributes.renews', 'before', '2026-01-01'],
  ['attributes.renews', 'after', '2026-01-01'],
  ['attributes.renews', 'between', ['2026-01-01', '2026-03-01']],
  ['attributes.renews', 'within_last_days', 7],
  ['attributes.beta', 'equals', true],
  ['attributes.beta', 'is_not_set', undefined],
  [`attributes.${MARK}`, 'equals', MARK],
];

describe('the segment compiler', () => {
  it.each(CASES)('compiles %s %s with every value bound as a parameter', (field, operator, value) => {
    const { sql, parameters } = compiled({ field, operator, value } as SegmentRule);
    expect(sql).not.toContain(MARK);
    expect(sql).not.toContain('$' + String(parameters.length + 1));
    if (JSON.stringify(value)?.includes(MARK) || field.includes(MARK)) expect(JSON.stringify(parameters).toLowerCase()).toContain(MARK);
  });

  it('reads an undefined attribute as a number, a boolean or a date from the condition', () => {
    expect(compiled({ field: 'attributes.size', operator: 'greater_than', value: 3 }).sql).toContain('::numeric');
    expect(compiled({ field: 'attributes.size', operator: 'not_equals', value: 3 }).sql).toContain('::numeric');
    expect(compiled({ field: 'attributes.size', operator: 'equals', value: 3 }).parameters).toEqual(['{"size":3}']);
    expect(compiled({ field: 'attributes.ok', operator: 'equals', value: true }).parameters).toEqual(['{"ok":true}']);
    expect(compiled({ field: 'attributes.when', operator: 'before', value: '2026-01-01' }).sql).toContain('~');
  });

  it('compiles equals on choices, numbers and booleans to containment, which the GIN index serves', () => {
    const plan = compiled({ field: 'attributes.plan', operator: 'equals', value: 'pro' });
    expect(plan.sql).toBe('(c.attributes @> $1::jsonb)');
    expect(plan.parameters).toEqual(['{"plan":"pro"}']);
    expect(compiled({ field: 'attributes.score', operator: 'equals', value: 1.5 }).parameters).toEqual(['{"score":1.5}']);
    expect(compiled({ field: `attributes.${MARK}"}`, operator: 'equals', value: 2 }).parameters).toEqual([JSON.stringify({ [`${MARK}"}`]: 2 })]);
    // Text compares without case, and `in` stays a filter: not as containment.
    expect(compiled({ field: 'attributes.city', operator: 'equals', value: 'London' }).sql).toBe('(lower((c.attributes ->> $1)) = $2)');
    expect(compiled({ field: 'attributes.plan', operator: 'in', value: ['free', 'pro'] }).sql).not.toContain('@>');
    expect(refusal({ field: 'attributes.score', operator: 'equals', value: '2' })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ field: 'attributes.beta', operator: 'equals', value: 'yes' })).toMatchObject({ pointer: '/rules/value' });
  });

  it('computes "the last N days" from its clock, as parameters', () => {
    const { parameters } = compiled({ field: 'created_at', operator: 'within_last_days', value: 2 });
    expect(parameters).toContainEqual(new Date('2026-11-22T12:00:00Z'));
    expect(compiled({ field: 'attributes.renews', operator: 'within_last_days', value: 2 }).parameters).toEqual(
      expect.arrayContaining(['2026-11-22', '2026-11-24']),
    );
  });

  it('reads a key set to null as left out, as SDKs that send every property write it', () => {
    const rules = { all: [{ field: 'email', operator: 'is_set', value: null, engagement: null }], any: null } as unknown as SegmentRule;
    expect(compiled(rules).sql).toBe(compiled({ all: [{ field: 'email', operator: 'is_set' }] }).sql);
  });

  it('joins groups with and/or, nested', () => {
    const { sql } = compiled({
      any: [
        {
          all: [
            { field: 'email', operator: 'is_set' },
            { field: 'tags', operator: 'is_set' },
          ],
        },
        { engagement: 'opened' },
      ],
    });
    expect(sql).toMatch(/^\(\(\(.* and .*\) or exists \(select 1 from "opens"/);
  });

  it('compiles opens and clicks by the contact and its account, and messages sent by the account', () => {
    const opened = compiled({ engagement: 'opened', campaign_id: 'cmp_1', within_days: 30 });
    expect(opened.sql).toMatch(
      /^exists \(select 1 from "opens" e where e.contact_id = c.id and e.account_id = \$1\s+and e.campaign_id = \$2\s+and e.occurred_at >= \$3\)$/,
    );
    expect(opened.parameters).toEqual(['acc_1', 'cmp_1', new Date('2026-10-25T12:00:00Z')]);
    expect(compiled({ engagement: 'not_clicked' }).sql).toMatch(/^\(not exists \(select 1 from "clicks"/);
    const received = compiled({ engagement: 'received', at_least: 3 });
    expect(received.sql).toContain('having count(*) >=');
    expect(received.parameters).toEqual(['acc_1', 3]);
  });

  it('compiles list membership to a bound exists on the members, and names the lists for checking', () => {
    const member = compiled({ membership: 'member', list_id: MARK });
    expect(member.sql).toMatch(/^exists \(select 1 from list_members m where m.list_id = \$1 and m.contact_id = c.id and m.account_id = \$2/);
    expect(member.parameters).toEqual([MARK, 'acc_1']);
    const notSubscribed = compiled({ membership: 'not_member', list_id: 'lst_1', list_status: 'subscribed' });
    expect(notSubscribed.sql).toMatch(/^\(not exists \(select 1 from list_members m .* and m.status = \$3\)\)$/s);
    expect(notSubscribed.parameters).toEqual(['lst_1', 'acc_1', 'subscribed']);
    const { lists } = compileRules({ any: [{ membership: 'member', list_id: 'lst_1' }, { all: [{ membership: 'not_member', list_id: 'lst_2' }] }] }, context);
    expect(lists).toEqual([
      { id: 'lst_1', pointer: '/rules/any/0/list_id' },
      { id: 'lst_2', pointer: '/rules/any/1/all/0/list_id' },
    ]);
  });

  it('refuses what does not fit, at the rule at fault', () => {
    expect(refusal({ all: [{ field: 'tags', operator: 'greater_than', value: 1 }] })).toMatchObject({ pointer: '/rules/all/0/operator' });
    expect(refusal({ field: 'attributes.plan', operator: 'equals', value: 'gold' })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ field: 'attributes.city', operator: 'greater_than', value: 1 })).toMatchObject({ pointer: '/rules/operator' });
    expect(refusal({ field: 'attributes.renews', operator: 'before', value: '2026-1-1' })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ field: 'created_at', operator: 'between', value: ['2026-02-01', '2026-01-01'] })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ field: 'created_at', operator: 'is_set' })).toMatchObject({ pointer: '/rules/operator' });
    expect(refusal({ field: 'email', operator: 'equals', value: '' })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ field: 5, operator: 'equals', value: 'x' })).toMatchObject({ pointer: '/rules/field' });
    expect(refusal({ any: [{ field: 'email', operator: 'like', value: 'x' }] })).toMatchObject({ pointer: '/rules/any/0/operator' });
    expect(refusal({ engagement: 'bounced' })).toMatchObject({ pointer: '/rules/engagement' });
    expect(refusal({ engagement: 'received', at_least: 0 })).toMatchObject({ pointer: '/rules/at_least' });
    expect(refusal({ engagement: 'opened', within_days: 0 })).toMatchObject({ pointer: '/rules/within_days' });
    expect(refusal({ all: [{ all: [{ all: [{ all: [{ all: [{ all: [{ field: 'email', operator: 'is_set' }] }] }] }] }] }] })).toMatchObject({
      pointer: '/rules/all/0/all/0/all/0/all/0/all/0',
    });
    expect(refusal({ any: Array.from({ length: 101 }, () => ({ field: 'email', operator: 'is_set' })) }).pointer).toBe('/rules/any/100');
    expect(refusal({ field: 'email', operator: 'in', value: Array.from({ length: 1001 }, (_, i) => String(i)) })).toMatchObject({ pointer: '/rules/value' });
    expect(refusal({ all: [] })).toMatchObject({ pointer: '/rules/all' });
    expect(refusal({ membership: 'member' })).toMatchObject({ pointer: '/rules/list_id' });
    expect(refusal({ membership: 'on', list_id: 'lst_1' })).toMatchObject({ pointer: '/rules/membership' });
    expect(refusal({ membership: 'member', list_id: 'lst_1', list_status: 'bounced' })).toMatchObject({ pointer: '/rules/list_status' });
    expect(refusal({ membership: 'member', list_id: 'lst_1', within_days: 3 })).toMatchObject({ pointer: '/rules/within_days' });
    expect(refusal(null)).toMatchObject({ pointer: '/rules' });
  });
});

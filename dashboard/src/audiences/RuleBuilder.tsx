/** The segment rule builder: groups of conditions (all or any), one level of nested groups. */
import type { components } from '@sendline/sdk';
import {
  ENGAGEMENTS,
  MEMBERSHIPS,
  MEMBER_STATUSES,
  OPERATORS,
  OPERATOR_LABELS,
  kindOf,
  needsValue,
  newCondition,
  newEngagement,
  newMembership,
  type Condition,
  type Engagement,
  type EngagementRow,
  type FieldChoice,
  type Group,
  type Membership,
  type MembershipRow,
  type MemberStatus,
  type Row,
} from './rules.ts';

type Campaign = components['schemas']['Campaign'];
type MailingList = components['schemas']['MailingList'];

interface Context {
  choices: FieldChoice[];
  campaigns: Campaign[];
  lists: MailingList[];
}

function ConditionRow({ row, name, onChange, ctx }: { row: Condition; name: string; onChange: (row: Condition) => void; ctx: Context }) {
  const choice = kindOf(ctx.choices, row.field);
  const operators = OPERATORS[choice.kind];
  const listed = row.operator === 'in' || row.operator === 'not_in' || row.operator === 'between';
  let input;
  if (!needsValue(row.operator)) input = null;
  else if ((choice.kind === 'choice' || choice.kind === 'status') && !listed)
    input = (
      <select aria-label={`Value of ${name}`} value={row.value} onChange={(event) => onChange({ ...row, value: event.target.value })}>
        <option value="">Choose…</option>
        {choice.options.map((option) => (
          <option key={option}>{option}</option>
        ))}
      </select>
    );
  else if (choice.kind === 'boolean')
    input = (
      <select aria-label={`Value of ${name}`} value={row.value} onChange={(event) => onChange({ ...row, value: event.target.value })}>
        <option value="">Choose…</option>
        <option value="true">true</option>
        <option value="false">false</option>
      </select>
    );
  else {
    const date = (choice.kind === 'date' || choice.kind === 'created_at') && !listed && row.operator !== 'within_last_days';
    const number = (choice.kind === 'number' && !listed) || row.operator === 'within_last_days';
    input = (
      <input
        aria-label={`Value of ${name}`}
        type={date ? 'date' : number ? 'number' : 'text'}
        value={row.value}
        placeholder={row.operator === 'between' ? 'low, high' : listed ? 'comma-separated' : ''}
        onChange={(event) => onChange({ ...row, value: event.target.value })}
      />
    );
  }
  return (
    <>
      <select
        aria-label={`Field of ${name}`}
        value={row.field}
        onChange={(event) => {
          const next = kindOf(ctx.choices, event.target.value);
          const keep = OPERATORS[next.kind].includes(row.operator);
          onChange({ ...row, field: event.target.value, operator: keep ? row.operator : OPERATORS[next.kind][0], value: '' });
        }}
      >
        {ctx.choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
      <select
        aria-label={`Operator of ${name}`}
        value={row.operator}
        onChange={(event) => onChange({ ...row, operator: event.target.value as Condition['operator'] })}
      >
        {operators.map((operator) => (
          <option key={operator} value={operator}>
            {OPERATOR_LABELS[operator]}
          </option>
        ))}
      </select>
      {input}
    </>
  );
}

function EngagementFields({ row, name, onChange, ctx }: { row: EngagementRow; name: string; onChange: (row: EngagementRow) => void; ctx: Context }) {
  return (
    <>
      <select
        aria-label={`Engagement of ${name}`}
        value={row.engagement}
        onChange={(event) => onChange({ ...row, engagement: event.target.value as Engagement })}
      >
        {Object.entries(ENGAGEMENTS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      {row.engagement === 'received' && (
        <input
          aria-label={`Messages received, ${name}`}
          type="number"
          min={1}
          value={row.at_least}
          placeholder="1"
          onChange={(event) => onChange({ ...row, at_least: event.target.value })}
        />
      )}
      <select aria-label={`Campaign of ${name}`} value={row.campaign_id} onChange={(event) => onChange({ ...row, campaign_id: event.target.value })}>
        <option value="">Any campaign</option>
        {ctx.campaigns.map((campaign) => (
          <option key={campaign.id} value={campaign.id}>
            {campaign.name}
          </option>
        ))}
      </select>
      <input
        aria-label={`Within the last days, ${name}`}
        type="number"
        min={1}
        max={3650}
        value={row.within_days}
        placeholder="days (any time)"
        onChange={(event) => onChange({ ...row, within_days: event.target.value })}
      />
    </>
  );
}

function MembershipFields({ row, name, onChange, ctx }: { row: MembershipRow; name: string; onChange: (row: MembershipRow) => void; ctx: Context }) {
  return (
    <>
      <select
        aria-label={`Membership of ${name}`}
        value={row.membership}
        onChange={(event) => onChange({ ...row, membership: event.target.value as Membership })}
      >
        {Object.entries(MEMBERSHIPS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <select aria-label={`List of ${name}`} value={row.list_id} onChange={(event) => onChange({ ...row, list_id: event.target.value })}>
        <option value="">Choose a list…</option>
        {ctx.lists.map((list) => (
          <option key={list.id} value={list.id}>
            {list.name}
          </option>
        ))}
      </select>
      <select
        aria-label={`Member status of ${name}`}
        value={row.list_status}
        onChange={(event) => onChange({ ...row, list_status: event.target.value as MemberStatus | '' })}
      >
        <option value="">in any status</option>
        {MEMBER_STATUSES.map((status) => (
          <option key={status} value={status}>
            as {status}
          </option>
        ))}
      </select>
    </>
  );
}

function GroupBox({
  group,
  path,
  onChange,
  onRemove,
  ctx,
}: {
  group: Group;
  path: string;
  onChange: (group: Group) => void;
  onRemove?: () => void;
  ctx: Context;
}) {
  const nested = path !== '';
  const set = (index: number, row: Row) => onChange({ ...group, rules: group.rules.map((r, i) => (i === index ? row : r)) });
  const add = (row: Row) => onChange({ ...group, rules: [...group.rules, row] });
  const groupName = nested ? `group ${path}` : 'the segment';
  return (
    <fieldset className="rule-group">
      <legend>
        <label className="inline">
          Contacts match
          <select
            aria-label={`Match of ${groupName}`}
            value={group.match}
            onChange={(event) => onChange({ ...group, match: event.target.value as Group['match'] })}
          >
            <option value="all">all</option>
            <option value="any">any</option>
          </select>
          of these{nested ? ' (group)' : ''}
        </label>
      </legend>
      {group.rules.length === 0 && <p className="muted">Add a condition to this group.</p>}
      <ol className="rule-rows">
        {group.rules.map((row, index) => {
          const name = `condition ${path}${index + 1}`;
          const remove = () => onChange({ ...group, rules: group.rules.filter((_, i) => i !== index) });
          return (
            <li key={index} className="rule-row">
              {row.type === 'group' ? (
                <GroupBox group={row} path={`${path}${index + 1}.`} onChange={(g) => set(index, g)} onRemove={remove} ctx={ctx} />
              ) : (
                <>
                  {row.type === 'condition' && <ConditionRow row={row} name={name} onChange={(r) => set(index, r)} ctx={ctx} />}
                  {row.type === 'engagement' && <EngagementFields row={row} name={name} onChange={(r) => set(index, r)} ctx={ctx} />}
                  {row.type === 'membership' && <MembershipFields row={row} name={name} onChange={(r) => set(index, r)} ctx={ctx} />}
                  <button type="button" className="link" aria-label={`Remove ${name}`} onClick={remove}>
                    Remove
                  </button>
                </>
              )}
            </li>
          );
        })}
      </ol>
      <div className="row">
        <button type="button" onClick={() => add(newCondition())}>
          Add condition{nested ? ' to the group' : ''}
        </button>
        <button type="button" onClick={() => add(newEngagement())}>
          Add engagement{nested ? ' to the group' : ''}
        </button>
        <button type="button" onClick={() => add(newMembership())}>
          Add list membership{nested ? ' to the group' : ''}
        </button>
        {!nested && (
          <button type="button" onClick={() => add({ type: 'group', match: 'any', rules: [newCondition()] })}>
            Add group
          </button>
        )}
        {onRemove && (
          <button type="button" className="link" onClick={onRemove} aria-label={`Remove ${groupName}`}>
            Remove group
          </button>
        )}
      </div>
    </fieldset>
  );
}

export function RuleBuilder({
  root,
  onChange,
  choices,
  campaigns,
  lists,
}: {
  root: Group;
  onChange: (root: Group) => void;
  choices: FieldChoice[];
  campaigns: Campaign[];
  lists: MailingList[];
}) {
  return <GroupBox group={root} path="" onChange={onChange} ctx={{ choices, campaigns, lists }} />;
}

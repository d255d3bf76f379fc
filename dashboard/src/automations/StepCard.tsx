import type { components } from '@sendline/sdk';
import type { ReactNode } from 'react';
import { formatNumber } from '../ui.tsx';
import { STEP_LABELS } from './labels.ts';

type Schemas = components['schemas'];
export type Step = Schemas['AutomationStep'];
type Stats = Schemas['AutomationStepStats'];
type Template = Schemas['Template'];

const list = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** A select of the step a way out goes to, or the journey's end. */
function NextPicker({
  label,
  value,
  ids,
  onChange,
}: {
  label: string;
  value: string | null | undefined;
  ids: string[];
  onChange: (next: string | null) => void;
}) {
  return (
    <label>
      {label}
      <select value={value ?? ''} onChange={(event) => onChange(event.target.value || null)}>
        <option value="">End of the journey</option>
        {ids.map((id) => (
          <option key={id} value={id}>
            {id}
          </option>
        ))}
      </select>
    </label>
  );
}

function Text({ label, value, onChange, placeholder }: { label: string; value: string | undefined; onChange: (value: string) => void; placeholder?: string }) {
  return (
    <label>
      {label}
      <input value={value ?? ''} placeholder={placeholder} onChange={(event) => onChange(event.target.value)} />
    </label>
  );
}

/** The fields of one step, by its type. */
function Fields({ step, ids, templates, set }: { step: Step; ids: string[]; templates: Template[]; set: (patch: Partial<Step>) => void }): ReactNode {
  const next = <NextPicker label="Then" value={step.next} ids={ids} onChange={(value) => set({ next: value })} />;
  switch (step.type) {
    case 'send_email':
      return (
        <>
          <label>
            Template to send
            <select value={step.template_id ?? ''} onChange={(event) => set({ template_id: event.target.value })}>
              <option value="">Choose a template</option>
              {templates.map((template) => (
                <option key={template.id} value={template.id}>
                  {template.name}
                </option>
              ))}
            </select>
          </label>
          <Text label="From address" value={step.from_email} placeholder="hello@example.com" onChange={(value) => set({ from_email: value })} />
          <Text label="From name" value={step.from_name} onChange={(value) => set({ from_name: value || undefined })} />
          <Text label="Subject (instead of the template's)" value={step.subject} onChange={(value) => set({ subject: value || undefined })} />
          {next}
        </>
      );
    case 'wait':
      return (
        <>
          <Text label="For (ISO 8601: P3D, PT2H)" value={step.duration} onChange={(value) => set({ duration: value })} />
          {next}
        </>
      );
    case 'wait_for_event':
      return (
        <>
          <Text label="Event" value={step.name} placeholder="order.shipped" onChange={(value) => set({ name: value })} />
          <Text label="At most (ISO 8601)" value={step.timeout} onChange={(value) => set({ timeout: value })} />
          {next}
          <NextPicker label="When it does not come" value={step.timeout_next} ids={ids} onChange={(value) => set({ timeout_next: value })} />
        </>
      );
    case 'condition':
      return (
        <>
          <label>
            Rules (JSON, as a segment's)
            <textarea
              rows={3}
              defaultValue={JSON.stringify(step.rules ?? { all: [] })}
              onBlur={(event) => {
                try {
                  set({ rules: JSON.parse(event.target.value) as Step['rules'] });
                } catch {
                  event.target.setCustomValidity('not JSON');
                }
              }}
            />
          </label>
          <NextPicker label="If they match" value={step.yes} ids={ids} onChange={(value) => set({ yes: value })} />
          <NextPicker label="If not" value={step.no} ids={ids} onChange={(value) => set({ no: value })} />
        </>
      );
    case 'split': {
      const branches = step.branches ?? [];
      const setBranch = (index: number, patch: Partial<Schemas['AutomationSplitBranch']>) =>
        set({ branches: branches.map((branch, i) => (i === index ? { ...branch, ...patch } : branch)) });
      return (
        <>
          {branches.map((branch, index) => (
            <div className="row" key={index}>
              <label>
                Branch {index + 1} (%)
                <input type="number" min={0} max={100} value={branch.percent} onChange={(event) => setBranch(index, { percent: Number(event.target.value) })} />
              </label>
              <NextPicker label="Goes to" value={branch.next} ids={ids} onChange={(value) => setBranch(index, { next: value })} />
              <button type="button" disabled={branches.length <= 2} onClick={() => set({ branches: branches.filter((_, i) => i !== index) })}>
                Remove branch {index + 1}
              </button>
            </div>
          ))}
          <div>
            <button type="button" disabled={branches.length >= 5} onClick={() => set({ branches: [...branches, { percent: 0, next: null }] })}>
              Add a branch
            </button>
          </div>
        </>
      );
    }
    case 'update_contact':
      return (
        <>
          <Text label="Add tags (comma-separated)" value={(step.add_tags ?? []).join(', ')} onChange={(value) => set({ add_tags: list(value) })} />
          <Text label="Remove tags" value={(step.remove_tags ?? []).join(', ')} onChange={(value) => set({ remove_tags: list(value) })} />
          {next}
        </>
      );
    case 'webhook':
      return (
        <>
          <Text label="URL" value={step.url} placeholder="https://crm.example.com/hooks" onChange={(value) => set({ url: value })} />
          {next}
        </>
      );
    case 'exit':
      return null;
  }
}

/** One step: its fields, its figures, and moving or deleting it. */
export function StepCard(props: {
  step: Step;
  index: number;
  count: number;
  ids: string[];
  templates: Template[];
  stats: Stats | undefined;
  errors: string[];
  set: (patch: Partial<Step>) => void;
  move: (by: -1 | 1) => void;
  remove: () => void;
}) {
  const { step, index, count, stats, errors } = props;
  return (
    <li className={`card stack step${errors.length ? ' invalid' : ''}`} aria-label={`Step ${step.id}`}>
      <div className="row">
        <h3>
          {index + 1}. {STEP_LABELS[step.type]} <code>{step.id}</code>
        </h3>
        <button type="button" onClick={() => props.move(-1)} disabled={index === 0} aria-label={`Move ${step.id} up`}>
          ↑
        </button>
        <button type="button" onClick={() => props.move(1)} disabled={index === count - 1} aria-label={`Move ${step.id} down`}>
          ↓
        </button>
        <button type="button" className="danger" onClick={props.remove} aria-label={`Delete ${step.id}`}>
          Delete
        </button>
      </div>
      {stats && (
        <p className="muted step-stats">
          {formatNumber(stats.entered)} entered · {formatNumber(stats.waiting)} here now · {formatNumber(stats.completed)} went on
          {stats.emails &&
            ` · ${formatNumber(stats.emails.sent)} sent, ${formatNumber(stats.emails.opened)} opened, ${formatNumber(stats.emails.clicked)} clicked`}
        </p>
      )}
      <Fields step={step} ids={props.ids.filter((id) => id !== step.id)} templates={props.templates} set={props.set} />
      {errors.map((error) => (
        <p key={error} className="error" role="alert">
          {error}
        </p>
      ))}
    </li>
  );
}

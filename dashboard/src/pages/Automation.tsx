import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { STEP_LABELS, TRIGGER_LABELS } from '../automations/labels.ts';
import { StepCard, type Step } from '../automations/StepCard.tsx';
import { api } from '../session.ts';
import { ConfirmButton, ErrorMessage, Loading, PageHeader, Status, formatDate, formatNumber } from '../ui.tsx';

type Schemas = components['schemas'];
type Automation = Schemas['Automation'];
type StepType = Schemas['AutomationStepType'];

/** A new step of `type`, with an id no other step has. */
function newStep(type: StepType, steps: Step[]): Step {
  let n = steps.length + 1;
  while (steps.some((s) => s.id === `${type}-${n}`)) n++;
  const id = `${type}-${n}`;
  const defaults: Record<StepType, Partial<Step>> = {
    send_email: { template_id: '', from_email: '' },
    wait: { duration: 'P1D' },
    wait_for_event: { name: '', timeout: 'P3D' },
    condition: { rules: { all: [] } },
    split: {
      branches: [
        { percent: 50, next: null },
        { percent: 50, next: null },
      ],
    },
    update_contact: { add_tags: [] },
    webhook: { url: '' },
    exit: {},
  };
  return { id, type, ...defaults[type] };
}

/** The steps without `id`: every way out that named it ends the journey instead. */
function withoutStep(steps: Step[], id: string): Step[] {
  const away = (target: string | null | undefined) => (target === id ? null : target);
  return steps
    .filter((s) => s.id !== id)
    .map((s) => ({
      ...s,
      ...(s.next !== undefined ? { next: away(s.next) } : {}),
      ...(s.yes !== undefined ? { yes: away(s.yes) } : {}),
      ...(s.no !== undefined ? { no: away(s.no) } : {}),
      ...(s.timeout_next !== undefined ? { timeout_next: away(s.timeout_next) } : {}),
      ...(s.branches ? { branches: s.branches.map((b) => ({ ...b, next: away(b.next) ?? null })) } : {}),
    }));
}

/** Field errors of a 400, by step index (`/steps/2/next` → 2); the others under -1. */
function errorsByStep(error: unknown): Map<number, string[]> {
  const found = new Map<number, string[]>();
  const errors = (error as { errors?: { pointer?: string; detail: string }[] } | null)?.errors ?? [];
  for (const e of errors) {
    const index = /^\/steps\/(\d+)/.exec(e.pointer ?? '')?.[1];
    const key = index === undefined ? -1 : Number(index);
    found.set(key, [...(found.get(key) ?? []), `${e.pointer ?? ''}: ${e.detail}`]);
  }
  return found;
}

function Enrollments({ id }: { id: string }) {
  const enrollments = useQuery({
    queryKey: ['automation', id, 'enrollments'],
    queryFn: () => api().automations.listEnrollments(id, { limit: 20 }).firstPage(),
  });
  if (enrollments.isPending) return <Loading />;
  const rows = enrollments.data?.data ?? [];
  return (
    <section className="card stack" aria-labelledby="enrollments">
      <h2 id="enrollments">Latest enrolments</h2>
      {rows.length === 0 ? (
        <p className="muted">Nobody has enrolled yet.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Contact</th>
                <th scope="col">Status</th>
                <th scope="col">At step</th>
                <th scope="col">Path</th>
                <th scope="col">Enrolled</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>
                    <code>{e.contact_id}</code>
                  </td>
                  <td>
                    <Status value={e.status} />
                  </td>
                  <td>{e.step_id ?? '—'}</td>
                  <td>{e.path.map((p) => (p.branch ? `${p.step_id} (${p.branch})` : p.step_id)).join(' → ')}</td>
                  <td>{formatDate(e.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export default function AutomationPage({ params }: { params: Record<string, string> }) {
  const client = useQueryClient();
  const id = params.id;
  const automation = useQuery({ queryKey: ['automation', id], queryFn: () => api().automations.get(id) });
  const analytics = useQuery({ queryKey: ['automation', id, 'analytics'], queryFn: () => api().analytics.automation(id) });
  const templates = useQuery({ queryKey: ['templates', 'picker'], queryFn: () => api().templates.list({ limit: 100 }).firstPage() });
  const [steps, setSteps] = useState<Step[] | null>(null);
  const [adding, setAdding] = useState<StepType>('send_email');
  useEffect(() => {
    if (automation.data && steps === null) setSteps(automation.data.steps);
  }, [automation.data, steps]);

  const updated = (next: Automation) => {
    client.setQueryData(['automation', id], next);
    setSteps(next.steps);
    void client.invalidateQueries({ queryKey: ['automations'] });
  };
  const save = useMutation({ mutationFn: (next: Step[]) => api().automations.update(id, { steps: next }), onSuccess: updated });
  const activate = useMutation({ mutationFn: () => api().automations.activate(id), onSuccess: updated });
  const pause = useMutation({ mutationFn: () => api().automations.pause(id), onSuccess: updated });
  const archive = useMutation({ mutationFn: () => api().automations.archive(id), onSuccess: updated });

  if (automation.isPending || steps === null) return <Loading />;
  if (!automation.data) return <ErrorMessage error={automation.error} retry={() => void automation.refetch()} />;
  const current = automation.data;
  const ids = steps.map((s) => s.id);
  const stats = new Map((analytics.data?.steps ?? []).map((s) => [s.step_id, s]));
  const errors = errorsByStep(save.error ?? activate.error);
  const dirty = JSON.stringify(steps) !== JSON.stringify(current.steps);
  const setStep = (index: number, patch: Partial<Step>) => setSteps(steps.map((s, i) => (i === index ? { ...s, ...patch } : s)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...steps];
    [next[index], next[index + by]] = [next[index + by], next[index]];
    setSteps(next);
  };

  return (
    <>
      <PageHeader title={current.name}>
        <Status value={current.status} />
      </PageHeader>
      <p className="muted">
        {TRIGGER_LABELS[current.trigger.type]} · version {current.version}
        {analytics.data && ` · ${formatNumber(analytics.data.enrollments.total)} enrolled, ${formatNumber(analytics.data.enrollments.completed)} completed`}
      </p>
      <div className="row">
        {(current.status === 'draft' || current.status === 'paused') && (
          <button type="button" className="primary" disabled={dirty || activate.isPending} onClick={() => activate.mutate()}>
            Activate
          </button>
        )}
        {current.status === 'active' && (
          <button type="button" disabled={pause.isPending} onClick={() => pause.mutate()}>
            Pause
          </button>
        )}
        {current.status !== 'archived' && (
          <ConfirmButton
            label="Archive"
            question="Archive this automation? Everyone in it leaves, and it cannot be activated again."
            confirm="Archive"
            danger
            disabled={archive.isPending}
            onConfirm={() => archive.mutate()}
          />
        )}
      </div>
      <ErrorMessage error={activate.error ?? pause.error ?? archive.error} />
      <section aria-labelledby="steps" className="stack">
        <h2 id="steps">Steps</h2>
        {current.status !== 'draft' && <p className="muted">Saving changes makes a new version: contacts in flight finish on the version they started.</p>}
        <ol className="steps stack">
          {steps.map((step, index) => (
            <StepCard
              key={step.id}
              step={step}
              index={index}
              count={steps.length}
              ids={ids}
              templates={templates.data?.data ?? []}
              stats={stats.get(step.id)}
              errors={errors.get(index) ?? []}
              set={(patch) => setStep(index, patch)}
              move={(by) => move(index, by)}
              remove={() => setSteps(withoutStep(steps, step.id))}
            />
          ))}
        </ol>
        <div className="row">
          <label>
            Add a step
            <select value={adding} onChange={(event) => setAdding(event.target.value as StepType)}>
              {Object.entries(STEP_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="button" onClick={() => setSteps([...steps, newStep(adding, steps)])}>
            Add
          </button>
          <button type="button" className="primary" disabled={!dirty || save.isPending || current.status === 'archived'} onClick={() => save.mutate(steps)}>
            {save.isPending ? 'Saving…' : 'Save steps'}
          </button>
        </div>
        {(errors.get(-1) ?? []).map((error) => (
          <p key={error} className="error" role="alert">
            {error}
          </p>
        ))}
        {save.isSuccess && !dirty && <p role="status">Saved.</p>}
      </section>
      <Enrollments id={id} />
    </>
  );
}

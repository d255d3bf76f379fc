import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, field, formatDate } from '../ui.tsx';
import { TRIGGER_LABELS } from '../automations/labels.ts';

type Automation = components['schemas']['Automation'];
type TriggerType = components['schemas']['AutomationTriggerType'];

function NewAutomation() {
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: (body: { name: string; type: TriggerType }) =>
      api().automations.create({ name: body.name, trigger: { type: body.type }, steps: [{ id: 'start', type: 'wait', duration: 'P1D' }] }),
    onSuccess: (automation: Automation) => {
      void client.invalidateQueries({ queryKey: ['automations'] });
      client.setQueryData(['automation', automation.id], automation);
      navigate(`/automations/${automation.id}`);
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    create.mutate({ name: field(form, 'name').trim(), type: field(form, 'trigger') as TriggerType });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-automation">
      <h2 id="new-automation">New automation</h2>
      <label>
        Name
        <input name="name" required maxLength={200} placeholder="Welcome series" autoComplete="off" />
      </label>
      <label>
        Starts when
        <select name="trigger" defaultValue="manual">
          {Object.entries(TRIGGER_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create draft
        </button>
      </div>
    </form>
  );
}

export default function Automations() {
  const automations = useQuery({ queryKey: ['automations'], queryFn: () => api().automations.list({ limit: 100 }).firstPage() });
  return (
    <>
      <PageHeader title="Automations" />
      <p className="muted">Journeys that enrol contacts on a trigger and walk them through emails, waits and branches.</p>
      <NewAutomation />
      <ErrorMessage error={automations.error} retry={automations.error ? () => void automations.refetch() : undefined} />
      {automations.isPending ? (
        <Loading />
      ) : automations.data?.data.length === 0 ? (
        <Empty title="No automations yet">
          <p>Create one above, then add its steps.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Automations</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Starts when</th>
                <th scope="col">Status</th>
                <th scope="col">Steps</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {automations.data?.data.map((automation) => (
                <tr key={automation.id}>
                  <td>
                    <Link to={`/automations/${automation.id}`}>{automation.name}</Link>
                  </td>
                  <td>{TRIGGER_LABELS[automation.trigger.type]}</td>
                  <td>
                    <Status value={automation.status} />
                  </td>
                  <td>{automation.steps.length}</td>
                  <td>{formatDate(automation.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

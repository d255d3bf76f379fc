import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { EventTypePicker } from '../EventTypes.tsx';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, SecretOnce, Status, field, formatDate, formatNumber } from '../ui.tsx';

type WebhookCreate = components['schemas']['WebhookCreate'];

/** An endpoint's state in one word: active, paused by the team, or disabled by Sendline (`disabled_reason` says why). */
export function webhookState(webhook: components['schemas']['Webhook']): 'active' | 'paused' | 'disabled' {
  if (webhook.active) return 'active';
  return webhook.disabled_reason ? 'disabled' : 'paused';
}

function CreateWebhook({ onCreated }: { onCreated: (secret: string) => void }) {
  const client = useQueryClient();
  const [events, setEvents] = useState<string[]>([]);
  const [missing, setMissing] = useState(false);
  const create = useMutation({
    mutationFn: (body: WebhookCreate) => api().webhooks.create(body),
    onSuccess: (webhook) => {
      onCreated(webhook.secret);
      void client.invalidateQueries({ queryKey: ['webhooks'] });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (events.length === 0) return setMissing(true);
    setMissing(false);
    const form = event.currentTarget;
    const data = new FormData(form);
    const description = field(data, 'description').trim();
    create.mutate(
      { url: field(data, 'url').trim(), events, ...(description ? { description } : {}) },
      {
        onSuccess: () => {
          form.reset();
          setEvents([]);
        },
      },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-webhook">
      <h2 id="new-webhook">New endpoint</h2>
      <div className="grid">
        <label>
          Endpoint URL
          <input name="url" type="url" required maxLength={2048} placeholder="https://hooks.example.com/sendline" />
        </label>
        <label>
          Description <span className="muted">(optional)</span>
          <input name="description" maxLength={500} placeholder="Bounces into the CRM" />
        </label>
      </div>
      <EventTypePicker legend="Events to send" selected={events} onChange={setEvents} allowAll />
      {missing && (
        <p role="alert" className="error">
          Choose at least one event type, a category or every event.
        </p>
      )}
      <ErrorMessage error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create endpoint
        </button>
      </div>
    </form>
  );
}

export default function Webhooks() {
  const [secret, setSecret] = useState<string | null>(null);
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api().webhooks.list({ limit: 100 }).firstPage() });
  return (
    <>
      <PageHeader title="Webhooks" />
      <p className="muted">
        Sendline posts the account’s events to these endpoints, signed with each endpoint’s secret (Standard Webhooks), and retries failures for up to a day.
      </p>
      {secret && <SecretOnce label="The endpoint’s signing secret." secret={secret} onDone={() => setSecret(null)} />}
      <CreateWebhook onCreated={setSecret} />
      <ErrorMessage error={webhooks.error} retry={() => void webhooks.refetch()} />
      {webhooks.isPending ? (
        <Loading />
      ) : webhooks.data?.data.length === 0 ? (
        <Empty title="No webhook endpoints yet">
          <p>Add one above with the URL of your receiver and the events it wants.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                <th scope="col">Delivered (24 h)</th>
                <th scope="col">Failed (24 h)</th>
                <th scope="col">Last success</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.data?.data.map((webhook) => (
                <tr key={webhook.id}>
                  <td>
                    <Link to={`/webhooks/${webhook.id}`}>{webhook.url}</Link>
                    {webhook.description && <div className="muted">{webhook.description}</div>}
                  </td>
                  <td>{webhook.events.join(', ')}</td>
                  <td>
                    <Status value={webhookState(webhook)} />
                    {webhook.disabled_reason && <div className="muted">{webhook.disabled_reason}</div>}
                  </td>
                  <td>{formatNumber(webhook.stats.delivered_24h)}</td>
                  <td>{formatNumber(webhook.stats.failed_24h)}</td>
                  <td>{webhook.stats.last_success_at ? formatDate(webhook.stats.last_success_at) : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

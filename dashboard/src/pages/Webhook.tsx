import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { EventTypePicker } from '../EventTypes.tsx';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, SecretOnce, Status, field, formatDate } from '../ui.tsx';
import { webhookState } from './Webhooks.tsx';

type Webhook = components['schemas']['Webhook'];
type DeliveryStatus = components['schemas']['DeliveryStatus'];
const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed'];
const PAGE_SIZE = 25;
/** The delivery log is polled while shown: deliveries are not events of their own. */
const LOG_REFRESH_MS = 3_000;

/** `datetime-local` wants local time without a zone. */
function localInputValue(date: Date): string {
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function EditWebhook({ webhook }: { webhook: Webhook }) {
  const client = useQueryClient();
  const [events, setEvents] = useState(webhook.events);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (body: components['schemas']['WebhookReplace']) => api().webhooks.update(webhook.id, body),
    onSuccess: (updated) => {
      client.setQueryData(['webhook', webhook.id], updated);
      void client.invalidateQueries({ queryKey: ['webhooks'] });
      setSaved(true);
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    const data = new FormData(event.currentTarget);
    const description = field(data, 'description').trim();
    save.mutate({ url: field(data, 'url').trim(), description: description || null, events, active: webhook.active });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="edit-webhook">
      <h2 id="edit-webhook">Settings</h2>
      <div className="grid">
        <label>
          Endpoint URL
          <input name="url" type="url" required maxLength={2048} defaultValue={webhook.url} />
        </label>
        <label>
          Description <span className="muted">(optional)</span>
          <input name="description" maxLength={500} defaultValue={webhook.description ?? ''} />
        </label>
      </div>
      <EventTypePicker legend="Events to send" selected={events} onChange={setEvents} allowAll />
      <ErrorMessage error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending || events.length === 0}>
          Save
        </button>
        <span role="status">{saved ? 'Saved.' : events.length === 0 ? 'Choose at least one event type.' : ''}</span>
      </div>
    </form>
  );
}

function Actions({ webhook }: { webhook: Webhook }) {
  const client = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = (updated: Webhook) => {
    client.setQueryData(['webhook', webhook.id], updated);
    void client.invalidateQueries({ queryKey: ['webhooks'] });
  };
  const toggle = useMutation({
    mutationFn: () =>
      api().webhooks.update(webhook.id, { url: webhook.url, description: webhook.description, events: webhook.events, active: !webhook.active }),
    onSuccess: refresh,
  });
  const rotate = useMutation({
    mutationFn: () => api().webhooks.rotateSecret(webhook.id),
    onSuccess: ({ secret: fresh, ...updated }) => {
      setSecret(fresh);
      refresh(updated);
    },
  });
  const test = useMutation({
    mutationFn: () => api().webhooks.test(webhook.id),
    onSettled: () => void client.invalidateQueries({ queryKey: ['deliveries', webhook.id] }),
  });
  const remove = useMutation({
    mutationFn: () => api().webhooks.delete(webhook.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['webhooks'] });
      navigate('/webhooks');
    },
  });
  const result = test.data;
  return (
    <section className="card stack" aria-labelledby="webhook-actions">
      <h2 id="webhook-actions">Actions</h2>
      {secret && (
        <SecretOnce
          label="The new signing secret. For 24 hours the old one keeps signing beside it, so switch your receiver over."
          secret={secret}
          onDone={() => setSecret(null)}
        />
      )}
      <div className="row">
        <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
          {test.isPending ? 'Sending a test…' : 'Send a test'}
        </button>
        <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending}>
          {webhook.active ? 'Pause deliveries' : 'Enable deliveries'}
        </button>
        <ConfirmButton
          label="Rotate secret"
          question="Make a new signing secret? The old one keeps signing beside it for 24 hours."
          confirm="Rotate"
          onConfirm={() => rotate.mutate()}
        />
        <ConfirmButton
          label="Delete endpoint"
          danger
          question={`Delete the endpoint ${webhook.url} and its delivery log? Deliveries still pending to it are dropped.`}
          confirm="Delete"
          onConfirm={() => remove.mutate()}
        />
      </div>
      <p role="status" data-testid="test-result">
        {result &&
          (result.success
            ? `The test was delivered: HTTP ${result.status_code} in ${result.latency_ms} ms.`
            : `The test failed: ${result.error ?? `HTTP ${result.status_code}`}. Check that the endpoint answers 2xx.`)}
      </p>
      <ErrorMessage error={test.error ?? toggle.error ?? rotate.error ?? remove.error} />
    </section>
  );
}

function Recover({ webhookId }: { webhookId: string }) {
  const client = useQueryClient();
  const recover = useMutation({
    mutationFn: (since: string) => api().webhooks.recover(webhookId, { since }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['deliveries', webhookId] }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    recover.mutate(new Date(field(new FormData(event.currentTarget), 'since')).toISOString());
  };
  return (
    <form className="row filters" onSubmit={submit} aria-label="Recover failed deliveries">
      <label>
        Failed since
        <input name="since" type="datetime-local" required defaultValue={localInputValue(new Date(Date.now() - 86_400_000))} />
      </label>
      <button type="submit" disabled={recover.isPending}>
        Re-send failed deliveries
      </button>
      <span role="status">{recover.data && `${recover.data.requeued} ${recover.data.requeued === 1 ? 'delivery' : 'deliveries'} queued again.`}</span>
      <ErrorMessage error={recover.error} />
    </form>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['deliveries', webhookId, status, cursor],
    queryFn: () =>
      api()
        .webhooks.deliveries(webhookId, { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}), ...(status ? { status } : {}) })
        .firstPage(),
    placeholderData: keepPreviousData,
    refetchInterval: cursor ? false : LOG_REFRESH_MS,
  });
  const retry = useMutation({
    mutationFn: (deliveryId: string) => api().webhooks.retryDelivery(webhookId, deliveryId),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['deliveries', webhookId] }),
  });
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">Deliveries</h2>
      <Recover webhookId={webhookId} />
      <div className="row filters">
        <label>
          Status
          <select
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as DeliveryStatus | '');
              setCursors([undefined]);
            }}
          >
            <option value="">Any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={page.error ?? retry.error} retry={page.error ? () => void page.refetch() : undefined} />
      {page.isPending ? (
        <Loading />
      ) : page.data?.data.length === 0 ? (
        <Empty title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
          <p>Deliveries appear here as events happen. Send a test to see one now.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Response</th>
                <th scope="col">Error or answer</th>
                <th scope="col">Created</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {page.data?.data.map((delivery) => (
                <tr key={delivery.id} data-testid="delivery">
                  <td>
                    {delivery.event_type}
                    <div className="muted">
                      <code>{delivery.event_id}</code>
                    </div>
                  </td>
                  <td>
                    <Status value={delivery.status} />
                  </td>
                  <td>{delivery.attempts}</td>
                  <td>
                    {delivery.status_code ?? '—'}
                    {delivery.latency_ms !== null && <div className="muted">{delivery.latency_ms} ms</div>}
                  </td>
                  <td className="excerpt">{delivery.error ?? delivery.response_excerpt ?? ''}</td>
                  <td>{formatDate(delivery.created_at)}</td>
                  <td>{formatDate(delivery.next_retry_at)}</td>
                  <td>
                    {/* A pending delivery is retried on its own schedule; a succeeded one needs none. */}
                    {delivery.status === 'failed' && (
                      <button
                        type="button"
                        onClick={() => retry.mutate(delivery.id)}
                        disabled={retry.isPending}
                        aria-label={`Retry the ${delivery.event_type} delivery ${delivery.id}`}
                      >
                        Retry
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="row pager">
        <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!page.data?.next_cursor} onClick={() => setCursors([...cursors, page.data?.next_cursor ?? undefined])}>
          Older
        </button>
      </div>
    </section>
  );
}

export default function WebhookPage({ params }: { params: Record<string, string> }) {
  const webhook = useQuery({ queryKey: ['webhook', params.id], queryFn: () => api().webhooks.get(params.id) });
  if (webhook.isPending) return <Loading />;
  if (webhook.error)
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <ErrorMessage error={webhook.error} retry={() => void webhook.refetch()} />
        <p>
          <Link to="/webhooks">Back to the webhooks</Link>
        </p>
      </>
    );
  const data = webhook.data;
  return (
    <>
      <PageHeader title="Webhook endpoint">
        <Link to="/webhooks">All endpoints</Link>
      </PageHeader>
      <p className="row">
        <code className="break">{data.url}</code> <Status value={webhookState(data)} />
        {data.disabled_reason && <span className="muted">Disabled by Sendline: {data.disabled_reason}. Enable it once the endpoint works.</span>}
      </p>
      <Actions webhook={data} />
      <Deliveries webhookId={data.id} />
      <EditWebhook key={data.id} webhook={data} />
    </>
  );
}

import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, SecretOnce, field, formatDate } from '../ui.tsx';

type Scope = components['schemas']['ApiKeyScope'];

function CreateKey({ onCreated }: { onCreated: (secret: string) => void }) {
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: (body: components['schemas']['ApiKeyCreate']) => api().apiKeys.create(body),
    onSuccess: (key) => {
      onCreated(key.key);
      void client.invalidateQueries({ queryKey: ['keys'] });
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const ips = field(form, 'allowed_ips')
      .split(/[\s,]+/)
      .filter(Boolean);
    const rate = field(form, 'rate_limit_per_minute');
    create.mutate(
      {
        name: field(form, 'name'),
        scopes: form.getAll('scopes').map(String) as Scope[],
        ...(ips.length ? { allowed_ips: ips } : {}),
        ...(rate ? { rate_limit_per_minute: Number(rate) } : {}),
      },
      { onSuccess: () => (event.target as HTMLFormElement).reset() },
    );
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-key">
      <h2 id="new-key">New key</h2>
      <div className="grid">
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="backend" />
        </label>
        <fieldset>
          <legend>Scopes</legend>
          <label className="inline">
            <input type="checkbox" name="scopes" value="read" defaultChecked /> read
          </label>
          <label className="inline">
            <input type="checkbox" name="scopes" value="write" defaultChecked /> write
          </label>
        </fieldset>
        <label>
          Allowed addresses <span className="muted">(CIDR, comma-separated; empty: anywhere)</span>
          <input name="allowed_ips" placeholder="203.0.113.0/24, ::1/128" />
        </label>
        <label>
          Requests a minute <span className="muted">(empty: the server's default)</span>
          <input name="rate_limit_per_minute" type="number" min={1} inputMode="numeric" />
        </label>
      </div>
      <ErrorMessage error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </div>
    </form>
  );
}

export default function ApiKeys() {
  const client = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  const keys = useQuery({ queryKey: ['keys'], queryFn: () => api().apiKeys.list({ limit: 100 }).firstPage() });
  const revoke = useMutation({
    mutationFn: (id: string) => api().apiKeys.delete(id),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['keys'] }),
  });
  return (
    <>
      <PageHeader title="API keys" />
      <p className="muted">Keys let your applications call the API. Each is stored only as a hash: its secret is shown once, when it is created.</p>
      {secret && <SecretOnce label="Your new API key." secret={secret} onDone={() => setSecret(null)} />}
      <CreateKey onCreated={setSecret} />
      <ErrorMessage error={keys.error ?? revoke.error} retry={keys.error ? () => void keys.refetch() : undefined} />
      {keys.isPending ? (
        <Loading />
      ) : keys.data?.data.length === 0 ? (
        <Empty title="No API keys yet">
          <p>Create one above to call the API from your application.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Allowed from</th>
                <th scope="col">Per minute</th>
                <th scope="col">Last used</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.data.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.scopes.join(', ')}</td>
                  <td>{key.allowed_ips.length ? key.allowed_ips.join(', ') : 'anywhere'}</td>
                  <td>{key.rate_limit_per_minute}</td>
                  <td>{key.last_used_at ? formatDate(key.last_used_at) : 'never'}</td>
                  <td>{formatDate(key.created_at)}</td>
                  <td>
                    <ConfirmButton
                      label="Revoke"
                      danger
                      question={`Revoke the key “${key.name}”? Applications using it stop working at once.`}
                      onConfirm={() => revoke.mutate(key.id)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

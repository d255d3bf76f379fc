import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, Status, field, formatDate } from '../ui.tsx';
import { TimeZoneInput } from '../TimeZoneInput.tsx';

type Contact = components['schemas']['Contact'];
type ContactStatus = components['schemas']['ContactStatus'];

function Tags({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const [tag, setTag] = useState('');
  const save = useMutation({
    mutationFn: (tags: string[]) => api().contacts.update(contact.id, { tags }),
    onSuccess: (updated) => {
      client.setQueryData(['contact', contact.id], updated);
      setTag('');
    },
  });
  return (
    <section className="card stack" aria-labelledby="tags">
      <h2 id="tags">Tags</h2>
      <ul className="row tags">
        {contact.tags.length === 0 && <li className="muted">No tags.</li>}
        {contact.tags.map((name) => (
          <li key={name} className="badge">
            {name}{' '}
            <button type="button" className="link" aria-label={`Remove the tag ${name}`} onClick={() => save.mutate(contact.tags.filter((t) => t !== name))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          if (tag.trim()) save.mutate([...new Set([...contact.tags, tag.trim()])]);
        }}
      >
        <label>
          New tag
          <input value={tag} onChange={(event) => setTag(event.target.value)} maxLength={100} />
        </label>
        <button type="submit" disabled={save.isPending}>
          Add tag
        </button>
      </form>
      <ErrorMessage error={save.error} />
    </section>
  );
}

function TimeZone({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: (timezone: string | null) => api().contacts.update(contact.id, { timezone }),
    onSuccess: (updated) => client.setQueryData(['contact', contact.id], updated),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    save.mutate(field(new FormData(event.currentTarget), 'timezone').trim() || null);
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="time-zone">
      <h2 id="time-zone">Time zone</h2>
      <p className="muted">Campaigns sent at a local time and automations use it; left empty, the account's applies.</p>
      <div className="row">
        <label>
          Contact's time zone
          <TimeZoneInput name="timezone" defaultValue={contact.timezone ?? ''} key={contact.timezone ?? ''} />
        </label>
        <button type="submit" disabled={save.isPending}>
          Save time zone
        </button>
      </div>
      <ErrorMessage error={save.error} />
    </form>
  );
}

function StatusChange({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const change = useMutation({
    mutationFn: (body: { status: ContactStatus; status_reason: string }) => api().contacts.update(contact.id, body),
    onSuccess: (updated) => client.setQueryData(['contact', contact.id], updated),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    change.mutate({ status: field(form, 'status') as ContactStatus, status_reason: field(form, 'reason') });
  };
  return (
    <section className="card stack" aria-labelledby="status">
      <h2 id="status">Status</h2>
      <p>
        <Status value={contact.status} /> {contact.status_reason && <span className="muted">— {contact.status_reason}</span>}{' '}
        <span className="muted">since {formatDate(contact.status_changed_at ?? contact.created_at)}</span>
      </p>
      <form className="row" onSubmit={submit}>
        <label>
          New status
          <select name="status" defaultValue={contact.status === 'subscribed' ? 'unsubscribed' : 'subscribed'}>
            <option value="subscribed">subscribed</option>
            <option value="unsubscribed">unsubscribed</option>
          </select>
        </label>
        <label>
          Reason <span className="muted">(recorded; required to subscribe again)</span>
          <input name="reason" maxLength={500} />
        </label>
        <button type="submit" disabled={change.isPending}>
          Change status
        </button>
      </form>
      <ErrorMessage error={change.error} />
    </section>
  );
}

export default function ContactPage({ params }: { params: Record<string, string> }) {
  const id = params.id;
  const client = useQueryClient();
  const contact = useQuery({ queryKey: ['contact', id], queryFn: () => api().contacts.get(id) });
  const activity = useQuery({ queryKey: ['contact', id, 'activity'], queryFn: () => api().contacts.activity(id, { limit: 100 }).firstPage() });
  const remove = useMutation({
    mutationFn: () => api().contacts.delete(id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['contacts'] });
      navigate('/contacts');
    },
  });
  if (contact.isPending) return <Loading />;
  if (!contact.data)
    return (
      <>
        <PageHeader title="Contact" />
        <ErrorMessage error={contact.error} retry={() => void contact.refetch()} />
        <Link to="/contacts">Back to contacts</Link>
      </>
    );
  const c = contact.data;
  const attributes = Object.entries(c.attributes ?? {});
  return (
    <>
      <PageHeader title={c.email}>
        <ConfirmButton
          label="Delete"
          danger
          question={`Delete ${c.email}? Campaign logs keep the address; the contact is gone.`}
          onConfirm={() => remove.mutate()}
        />
      </PageHeader>
      <p>
        <Link to="/contacts">← Contacts</Link>
      </p>
      <ErrorMessage error={remove.error} />
      <section className="card" aria-labelledby="details">
        <h2 id="details">Details</h2>
        <dl className="details">
          <dt>Name</dt>
          <dd>{[c.first_name, c.last_name].filter(Boolean).join(' ') || '—'}</dd>
          <dt>Added</dt>
          <dd>{formatDate(c.created_at)}</dd>
          <dt>Time zone</dt>
          <dd>{c.timezone ?? "The account's"}</dd>
          {attributes.map(([key, value]) => (
            <div key={key} className="contents">
              <dt>{key}</dt>
              <dd>{typeof value === 'string' ? value : JSON.stringify(value)}</dd>
            </div>
          ))}
        </dl>
      </section>
      <Tags contact={c} />
      <TimeZone contact={c} />
      <StatusChange contact={c} />
      <section className="card" aria-labelledby="activity">
        <h2 id="activity">Activity</h2>
        <ErrorMessage error={activity.error} />
        {activity.data?.data.length === 0 ? (
          <Empty title="No activity yet">
            <p>Sends, opens, clicks and bounces show here.</p>
          </Empty>
        ) : (
          <ol className="timeline">
            {activity.data?.data.map((item, index) => (
              <li key={index}>
                <Status value={item.type} /> {formatDate(item.occurred_at)} {item.campaign_id && <Link to={`/campaigns/${item.campaign_id}`}>campaign</Link>}{' '}
                {item.url && <code>{item.url}</code>} {item.detail}
              </li>
            ))}
          </ol>
        )}
      </section>
    </>
  );
}

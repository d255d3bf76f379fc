import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useLiveEvents, type LiveEvent } from '../live.ts';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, formatDate } from '../ui.tsx';
import { pastedEmails } from './kit.tsx';
import { Pager, useCursors, useSettled } from './kit.tsx';

type EmailStatus = components['schemas']['EmailStatus'];
const STATUSES: EmailStatus[] = ['scheduled', 'queued', 'sending', 'delivered', 'deferred', 'bounced', 'failed', 'cancelled'];

/** Transactional emails' events make the log and an email's page stale. */
export function useEmailEvents(): void {
  const client = useQueryClient();
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        if (event.type.startsWith('email.')) {
          void client.invalidateQueries({ queryKey: ['emails'] });
          void client.invalidateQueries({ queryKey: ['email'] });
        }
      },
      [client],
    ),
  );
}

/** A test message through `POST /emails`, to see the log and its events at work. */
function SendTest() {
  const client = useQueryClient();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [subject, setSubject] = useState('A test from Sendline');
  const [html, setHtml] = useState('<p>Hello from Sendline.</p>');
  const send = useMutation({
    mutationFn: () =>
      api().emails.send({ from: { email: from.trim() }, to: pastedEmails(to).map((email) => ({ email })), subject, html, tags: ['dashboard-test'] }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['emails'] }),
  });
  return (
    <details className="card">
      <summary>Send a test email</summary>
      <form
        className="stack"
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        <div className="grid">
          <label>
            From
            <input type="email" value={from} onChange={(event) => setFrom(event.target.value)} required />
          </label>
          <label>
            To <span className="muted">(up to 50, comma-separated)</span>
            <input value={to} onChange={(event) => setTo(event.target.value)} required />
          </label>
        </div>
        <label>
          Subject
          <input value={subject} onChange={(event) => setSubject(event.target.value)} required maxLength={998} />
        </label>
        <label>
          HTML
          <textarea rows={3} value={html} onChange={(event) => setHtml(event.target.value)} required />
        </label>
        <ErrorMessage error={send.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={send.isPending}>
            Send
          </button>
          <span role="status" className="muted">
            {send.data ? send.data.data.map((r) => `${r.email}: ${r.status}${r.reason ? ` (${r.reason})` : ''}`).join('; ') : ''}
          </span>
        </div>
      </form>
    </details>
  );
}

export default function Emails() {
  useEmailEvents();
  const [status, setStatus] = useState<EmailStatus | ''>('');
  const [to, setTo] = useState('');
  const [tag, setTag] = useState('');
  const [after, setAfter] = useState('');
  const filters = useSettled({ status, to: to.trim(), tag: tag.trim(), after });
  const paging = useCursors(JSON.stringify(filters));
  const emails = useQuery({
    queryKey: ['emails', filters, paging.cursor],
    queryFn: () =>
      api()
        .emails.list({
          limit: 50,
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.to ? { to: filters.to } : {}),
          ...(filters.tag ? { tag: filters.tag } : {}),
          ...(filters.after ? { created_after: new Date(filters.after) } : {}),
          ...(paging.cursor ? { cursor: paging.cursor } : {}),
        })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(filters.status || filters.to || filters.tag || filters.after);
  return (
    <>
      <PageHeader title="Transactional emails" />
      <SendTest />
      <form className="row filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          To
          <input type="search" value={to} onChange={(event) => setTo(event.target.value)} placeholder="someone@example.com" />
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.target.value as EmailStatus | '')}>
            <option value="">Any</option>
            {STATUSES.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Tag
          <input value={tag} onChange={(event) => setTag(event.target.value)} placeholder="receipt" />
        </label>
        <label>
          Sent since
          <input type="date" value={after} onChange={(event) => setAfter(event.target.value)} />
        </label>
      </form>
      <ErrorMessage error={emails.error} retry={() => void emails.refetch()} />
      {emails.isPending ? (
        <Loading />
      ) : !emails.data?.data.length ? (
        filtered ? (
          <Empty title="No email matches">
            <p>Change the filters.</p>
          </Empty>
        ) : (
          <Empty title="No transactional emails yet">
            <p>
              Send one through the API (<code>POST /api/emails</code>) or over SMTP submission; each recipient’s copy shows here with its events.
            </p>
          </Empty>
        )
      ) : (
        <>
          <div className="table-wrap">
            <table aria-busy={emails.isFetching}>
              <caption className="sr-only">Transactional emails</caption>
              <thead>
                <tr>
                  <th scope="col">To</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {emails.data.data.map((email) => (
                  <tr key={email.id}>
                    <td>
                      <Link to={`/emails/${email.id}`}>{email.email}</Link>
                    </td>
                    <td>{email.subject}</td>
                    <td>
                      <Status value={email.status} />
                    </td>
                    <td>{email.tags.join(', ')}</td>
                    <td>{formatDate(email.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={emails.data.next_cursor} />
        </>
      )}
    </>
  );
}

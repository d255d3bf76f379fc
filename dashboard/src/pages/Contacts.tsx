import type { components } from '@sendline/sdk';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, formatDate } from '../ui.tsx';

type ContactStatus = components['schemas']['ContactStatus'];
const STATUSES: ContactStatus[] = ['subscribed', 'unsubscribed', 'bounced', 'complained'];
const PAGE_SIZE = 50;

/** The value after the user stopped typing for a moment. */
function useSettled<T>(value: T, ms = 250): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

export default function Contacts() {
  const [q, setQ] = useState('');
  const [status, setStatus] = useState<ContactStatus | ''>('');
  const [tag, setTag] = useState('');
  // Keyset paging: the cursors of the pages seen so far, to step back through them.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const filters = useSettled({ q: q.trim(), status, tag: tag.trim() });
  useEffect(() => setCursors([undefined]), [filters.q, filters.status, filters.tag]);
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['contacts', filters, cursor],
    queryFn: () =>
      api()
        .contacts.list({
          limit: PAGE_SIZE,
          ...(cursor ? { cursor } : {}),
          ...(filters.q ? { q: filters.q } : {}),
          ...(filters.status ? { status: filters.status } : {}),
          ...(filters.tag ? { tag: filters.tag } : {}),
        })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(filters.q || filters.status || filters.tag);
  return (
    <>
      <PageHeader title="Contacts">
        <Link to="/contacts/import" className="button primary">
          Import a CSV
        </Link>
      </PageHeader>
      <form className="row filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Search
          <input type="search" value={q} onChange={(event) => setQ(event.target.value)} placeholder="Email or name, from its start" />
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.target.value as ContactStatus | '')}>
            <option value="">Any</option>
            {STATUSES.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tag
          <input value={tag} onChange={(event) => setTag(event.target.value)} placeholder="vip" />
        </label>
      </form>
      <ErrorMessage error={page.error} retry={() => void page.refetch()} />
      {page.isPending ? (
        <Loading />
      ) : page.data?.data.length === 0 ? (
        filtered ? (
          <Empty title="No contact matches">
            <p>Change the search or the filters.</p>
          </Empty>
        ) : (
          <Empty title="No contacts yet">
            <p>
              <Link to="/contacts/import">Import a CSV</Link>, or add contacts through the API (<code>POST /api/contacts</code>).
            </p>
          </Empty>
        )
      ) : (
        <>
          <div className="table-wrap">
            <table aria-busy={page.isFetching}>
              <caption className="sr-only">Contacts</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                  <th scope="col">Added</th>
                </tr>
              </thead>
              <tbody>
                {page.data?.data.map((contact) => (
                  <tr key={contact.id}>
                    <td>
                      <Link to={`/contacts/${contact.id}`}>{contact.email}</Link>
                    </td>
                    <td>{[contact.first_name, contact.last_name].filter(Boolean).join(' ')}</td>
                    <td>
                      <Status value={contact.status} />
                    </td>
                    <td>{contact.tags.join(', ')}</td>
                    <td>{formatDate(contact.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="row pager" aria-label="Pages">
            <button type="button" disabled={cursors.length === 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <span className="muted">Page {cursors.length}</span>
            <button type="button" disabled={!page.data?.next_cursor} onClick={() => setCursors([...cursors, page.data!.next_cursor!])}>
              Next
            </button>
          </nav>
        </>
      )}
    </>
  );
}

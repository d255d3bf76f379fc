import type { components } from '@sendline/sdk';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, formatDate, formatNumber } from '../ui.tsx';
import { BulkActions, ExportButton, type BulkResult, type BulkTarget, type ContactFilter } from './ContactsBulk.tsx';

type ContactStatus = components['schemas']['ContactStatus'];
type ContactSort = components['schemas']['ContactSort'];
const STATUSES: ContactStatus[] = ['subscribed', 'unsubscribed', 'bounced', 'complained'];
const PAGE_SIZE = 50;
const SORTS: { value: ContactSort; label: string }[] = [
  { value: 'created_at', label: 'Oldest first' },
  { value: '-created_at', label: 'Newest first' },
  { value: 'email', label: 'Email, A to Z' },
  { value: '-email', label: 'Email, Z to A' },
];

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
  const [sort, setSort] = useState<ContactSort>('created_at');
  // Ticked contacts by id, or every contact the filters match.
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [allMatching, setAllMatching] = useState(false);
  const [outcome, setOutcome] = useState<BulkResult | null>(null);
  const client = useQueryClient();
  // Keyset paging: the cursors of the pages seen so far, to step back through them.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const filters = useSettled({ q: q.trim(), status, tag: tag.trim() });
  useEffect(() => setCursors([undefined]), [filters.q, filters.status, filters.tag, sort]);
  useEffect(() => {
    setSelected(new Set());
    setAllMatching(false);
  }, [filters.q, filters.status, filters.tag]);
  const filter: ContactFilter = {
    ...(filters.q ? { q: filters.q } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
  };
  const cursor = cursors[cursors.length - 1];
  const page = useQuery({
    queryKey: ['contacts', filters, sort, cursor],
    queryFn: () =>
      api()
        .contacts.list({ limit: PAGE_SIZE, sort, ...(cursor ? { cursor } : {}), ...filter })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  const total = useQuery({ queryKey: ['contacts', 'count', filters], queryFn: () => api().contacts.count(filter), placeholderData: keepPreviousData });
  const filtered = Boolean(filters.q || filters.status || filters.tag);
  const shown = page.data?.data ?? [];
  const pageTicked = shown.length > 0 && shown.every((contact) => selected.has(contact.id));
  const tick = (ids: string[], on: boolean) => {
    const next = new Set(selected);
    for (const id of ids)
      if (on) next.add(id);
      else next.delete(id);
    setSelected(next);
    setAllMatching(false);
  };
  const target: BulkTarget | null = allMatching ? { filter, count: total.data?.count ?? 0 } : selected.size ? { ids: [...selected] } : null;
  const acted = (result: BulkResult) => {
    setOutcome(result);
    setSelected(new Set());
    setAllMatching(false);
    setCursors([undefined]);
    void client.invalidateQueries({ queryKey: ['contacts'] });
  };
  return (
    <>
      <PageHeader title="Contacts">
        <ExportButton filters={filter} label="Export all matching (CSV)" />
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
        <label>
          Sort
          <select value={sort} onChange={(event) => setSort(event.target.value as ContactSort)}>
            {SORTS.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </form>
      {total.data && (
        <p role="status" data-testid="contacts-total">
          {total.data.exact ? '' : 'About '}
          {formatNumber(total.data.count)} {total.data.count === 1 ? 'contact' : 'contacts'}
          {filtered ? ' match' : ''}
          {pageTicked && !allMatching && total.data.count > shown.length && (
            <>
              {' · '}
              <button type="button" className="link" onClick={() => setAllMatching(true)}>
                Select all {formatNumber(total.data.count)} matching
              </button>
            </>
          )}
        </p>
      )}
      {target && <BulkActions target={target} onDone={acted} />}
      {outcome && (
        <p role="status" data-testid="bulk-result">
          Done: {formatNumber(outcome.changed)} of {formatNumber(outcome.matched)} contacts changed.
        </p>
      )}
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
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label="Select the contacts on this page"
                      checked={allMatching || pageTicked}
                      onChange={(event) =>
                        tick(
                          shown.map((contact) => contact.id),
                          event.target.checked,
                        )
                      }
                    />
                  </th>
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
                      <input
                        type="checkbox"
                        aria-label={`Select ${contact.email}`}
                        checked={allMatching || selected.has(contact.id)}
                        onChange={(event) => tick([contact.id], event.target.checked)}
                      />
                    </td>
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

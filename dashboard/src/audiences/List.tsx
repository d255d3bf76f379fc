import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, Status, formatDate, formatNumber } from '../ui.tsx';
import { ListFields, listBody, type ListDraft } from './ListForm.tsx';
import { CopyButton, Pager, pastedEmails, useCursors } from './kit.tsx';

type List = components['schemas']['MailingList'];
type MemberStatus = components['schemas']['ListMemberStatus'];
const STATUSES: MemberStatus[] = ['subscribed', 'unconfirmed', 'unsubscribed'];

function Settings({ list }: { list: List }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<ListDraft>({ ...list });
  const save = useMutation({
    mutationFn: () => api().lists.update(list.id, listBody(draft)),
    onSuccess: (saved) => {
      client.setQueryData(['list', list.id], saved);
      void client.invalidateQueries({ queryKey: ['lists'] });
    },
  });
  return (
    <form
      className="card stack"
      aria-labelledby="list-settings"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <h2 id="list-settings">Settings</h2>
      <ListFields draft={draft} onChange={setDraft} />
      <ErrorMessage error={save.error} />
      <div className="row">
        <button type="submit" className="primary" disabled={save.isPending}>
          Save
        </button>
        {save.isSuccess && (
          <span role="status" className="muted">
            Saved.
          </span>
        )}
      </div>
    </form>
  );
}

function Membership({ list }: { list: List }) {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [status, setStatus] = useState<MemberStatus | ''>('');
  const [outcome, setOutcome] = useState('');
  const done = (message: string) => {
    setOutcome(message);
    setText('');
    void client.invalidateQueries({ queryKey: ['list', list.id] });
    void client.invalidateQueries({ queryKey: ['list-members', list.id] });
    void client.invalidateQueries({ queryKey: ['lists'] });
  };
  const notFound = (emails: string[]) => (emails.length ? ` No contact has ${emails.join(', ')}: import them as contacts first.` : '');
  const add = useMutation({
    mutationFn: () => api().lists.addMembers(list.id, { emails: pastedEmails(text), ...(status ? { status } : {}) }),
    onSuccess: (r) => done(`Added ${r.added}, updated ${r.updated}, already members ${r.already_members}.${notFound(r.not_found.emails)}`),
  });
  const remove = useMutation({
    mutationFn: () => api().lists.removeMembers(list.id, { emails: pastedEmails(text) }),
    onSuccess: (r) => done(`Removed ${r.removed}; not members ${r.not_members}.${notFound(r.not_found.emails)}`),
  });
  const count = pastedEmails(text).length;
  return (
    <form className="card stack" aria-labelledby="add-members" onSubmit={(event) => event.preventDefault()}>
      <h2 id="add-members">Add or remove members</h2>
      <label>
        Contacts’ emails <span className="muted">(one a line, or separated by commas; up to 10,000)</span>
        <textarea rows={4} value={text} onChange={(event) => setText(event.target.value)} spellCheck={false} />
      </label>
      <label>
        Status for the added members
        <select value={status} onChange={(event) => setStatus(event.target.value as MemberStatus | '')}>
          <option value="">{list.double_opt_in ? 'unconfirmed (a confirmation message is sent)' : 'subscribed'}</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={add.error ?? remove.error} />
      <div className="row">
        <button type="button" className="primary" disabled={!count || add.isPending} onClick={() => add.mutate()}>
          Add members
        </button>
        <button type="button" disabled={!count || remove.isPending} onClick={() => remove.mutate()}>
          Remove members
        </button>
      </div>
      <p role="status" className="muted" data-testid="members-outcome">
        {outcome}
      </p>
    </form>
  );
}

function Members({ list }: { list: List }) {
  const [status, setStatus] = useState<MemberStatus | ''>('');
  const paging = useCursors(status);
  const members = useQuery({
    queryKey: ['list-members', list.id, status, paging.cursor],
    queryFn: () =>
      api()
        .lists.members(list.id, { limit: 50, ...(status ? { status } : {}), ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="stack" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <label>
        Status
        <select value={status} onChange={(event) => setStatus(event.target.value as MemberStatus | '')}>
          <option value="">Any</option>
          {STATUSES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <ErrorMessage error={members.error} retry={() => void members.refetch()} />
      {members.isPending ? (
        <Loading />
      ) : !members.data?.data.length ? (
        <Empty title={status ? `No ${status} members` : 'No members yet'}>
          <p>Paste contacts’ emails above, or put the subscribe form below on a web page.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table aria-busy={members.isFetching}>
              <caption className="sr-only">Members of {list.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col">Confirmed</th>
                  <th scope="col">Joined</th>
                </tr>
              </thead>
              <tbody>
                {members.data.data.map((member) => (
                  <tr key={member.contact_id}>
                    <td>
                      <Link to={`/contacts/${member.contact_id}`}>{member.email}</Link>
                    </td>
                    <td>
                      <Status value={member.status} />
                    </td>
                    <td>{formatDate(member.confirmed_at)}</td>
                    <td>{formatDate(member.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={members.data.next_cursor} label="Pages of members" />
        </>
      )}
    </section>
  );
}

function SubscribeForm({ list }: { list: List }) {
  const form = useQuery({ queryKey: ['list-form', list.id], queryFn: () => api().lists.form(list.id) });
  return (
    <section className="card stack" aria-labelledby="form-title">
      <h2 id="form-title">Subscribe form</h2>
      <p className="muted">Paste this HTML into any web page: it posts to {form.data?.action ?? 'the public subscribe address'}.</p>
      <ErrorMessage error={form.error} retry={() => void form.refetch()} />
      {form.data && (
        <>
          <pre className="code" tabIndex={0} aria-label="The form's HTML" data-testid="list-form">
            <code>{form.data.html}</code>
          </pre>
          <div className="row">
            <CopyButton text={form.data.html} label="Copy the form" />
          </div>
        </>
      )}
    </section>
  );
}

export default function ListPage({ params }: { params: Record<string, string> }) {
  const client = useQueryClient();
  const list = useQuery({ queryKey: ['list', params.id], queryFn: () => api().lists.get(params.id) });
  const remove = useMutation({
    mutationFn: () => api().lists.delete(params.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['lists'] });
      navigate('/lists');
    },
  });
  if (list.isPending) return <Loading />;
  if (!list.data) return <ErrorMessage error={list.error} retry={() => void list.refetch()} />;
  const counts = list.data.members;
  return (
    <>
      <PageHeader title={list.data.name}>
        <ConfirmButton
          label="Delete list"
          question={`Delete the list “${list.data.name}”? Its memberships go with it; the contacts stay.`}
          confirm="Delete"
          danger
          onConfirm={() => remove.mutate()}
        />
      </PageHeader>
      <p className="muted">
        <Link to="/lists">All lists</Link>
      </p>
      <ErrorMessage error={remove.error} />
      <div className="figures">
        {STATUSES.map((status) => (
          <div className="figure" key={status}>
            <strong data-testid={`members-${status}`}>{formatNumber(counts[status])}</strong> {status}
          </div>
        ))}
      </div>
      <div className="editor">
        <Settings list={list.data} />
        <Membership list={list.data} />
      </div>
      <Members list={list.data} />
      <SubscribeForm list={list.data} />
    </>
  );
}

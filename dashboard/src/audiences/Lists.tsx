import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, formatDate, formatNumber } from '../ui.tsx';
import { ListFields, listBody, type ListDraft } from './ListForm.tsx';
import { Pager, useCursors } from './kit.tsx';

const blank: ListDraft = { name: '', description: '', double_opt_in: false, from_email: '', from_name: '' };

export default function Lists() {
  const client = useQueryClient();
  const paging = useCursors('');
  const lists = useQuery({
    queryKey: ['lists', paging.cursor],
    queryFn: () =>
      api()
        .lists.list({ limit: 50, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
  });
  const [draft, setDraft] = useState<ListDraft>(blank);
  const create = useMutation({
    mutationFn: () => api().lists.create(listBody(draft)),
    onSuccess: (list) => {
      void client.invalidateQueries({ queryKey: ['lists'] });
      navigate(`/lists/${list.id}`);
    },
  });
  return (
    <>
      <PageHeader title="Lists" />
      <form
        className="card stack"
        aria-labelledby="new-list"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <h2 id="new-list">New list</h2>
        <ListFields draft={draft} onChange={setDraft} />
        <ErrorMessage error={create.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create list
          </button>
        </div>
      </form>
      <ErrorMessage error={lists.error} retry={() => void lists.refetch()} />
      {lists.isPending ? (
        <Loading />
      ) : !lists.data?.data.length ? (
        <Empty title="No lists yet">
          <p>Create one above, then add contacts to it from its page or let people subscribe through its form. Campaigns can send to its subscribed members.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Lists</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Subscribed</th>
                  <th scope="col">Unconfirmed</th>
                  <th scope="col">Unsubscribed</th>
                  <th scope="col">Double opt-in</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {lists.data.data.map((list) => (
                  <tr key={list.id}>
                    <td>
                      <Link to={`/lists/${list.id}`}>{list.name}</Link>
                    </td>
                    <td>{formatNumber(list.members.subscribed)}</td>
                    <td>{formatNumber(list.members.unconfirmed)}</td>
                    <td>{formatNumber(list.members.unsubscribed)}</td>
                    <td>{list.double_opt_in ? 'yes' : 'no'}</td>
                    <td>{formatDate(list.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={lists.data.next_cursor} />
        </>
      )}
    </>
  );
}

import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, formatDate } from '../ui.tsx';
import { Pager, useCursors } from './kit.tsx';

type Topic = components['schemas']['Topic'];

function TopicRow({ topic }: { topic: Topic }) {
  const client = useQueryClient();
  const [name, setName] = useState(topic.name);
  const [description, setDescription] = useState(topic.description ?? '');
  const done = () => void client.invalidateQueries({ queryKey: ['topics'] });
  const save = useMutation({
    mutationFn: () => api().topics.update(topic.id, { name: name.trim(), description: description.trim() || null }),
    onSuccess: done,
  });
  const remove = useMutation({ mutationFn: () => api().topics.delete(topic.id), onSuccess: done });
  return (
    <tr>
      <td>
        <input aria-label={`Name of ${topic.name}`} value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      </td>
      <td>
        <input aria-label={`Description of ${topic.name}`} value={description} onChange={(event) => setDescription(event.target.value)} maxLength={500} />
      </td>
      <td>{formatDate(topic.created_at)}</td>
      <td>
        <div className="row">
          <button type="button" onClick={() => save.mutate()} disabled={save.isPending}>
            Save
          </button>
          <ConfirmButton
            label="Delete"
            question={`Delete the topic “${topic.name}”? Campaigns that name it keep being sent.`}
            danger
            onConfirm={() => remove.mutate()}
          />
        </div>
        <ErrorMessage error={save.error ?? remove.error} />
      </td>
    </tr>
  );
}

export default function Topics() {
  const client = useQueryClient();
  const paging = useCursors('');
  const topics = useQuery({
    queryKey: ['topics', paging.cursor],
    queryFn: () =>
      api()
        .topics.list({ limit: 50, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
  });
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => api().topics.create({ name: name.trim(), description: description.trim() || null }),
    onSuccess: () => {
      setName('');
      setDescription('');
      void client.invalidateQueries({ queryKey: ['topics'] });
    },
  });
  return (
    <>
      <PageHeader title="Topics" />
      <p className="muted">Unsubscribe topics: a recipient can leave one (say, “Product news”) and keep receiving the rest.</p>
      <form
        className="card stack"
        aria-labelledby="new-topic"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <h2 id="new-topic">New topic</h2>
        <div className="grid">
          <label>
            Name
            <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
          </label>
          <label>
            Description <span className="muted">(shown on the unsubscribe page)</span>
            <input value={description} onChange={(event) => setDescription(event.target.value)} maxLength={500} />
          </label>
        </div>
        <ErrorMessage error={create.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create topic
          </button>
        </div>
      </form>
      <ErrorMessage error={topics.error} retry={() => void topics.refetch()} />
      {topics.isPending ? (
        <Loading />
      ) : !topics.data?.data.length ? (
        <Empty title="No topics yet">
          <p>Create one above, then choose it in a campaign so that its unsubscribe link leaves that topic only.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Topics</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Description</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {topics.data.data.map((topic) => (
                  <TopicRow key={`${topic.id}${topic.updated_at}`} topic={topic} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={topics.data.next_cursor} />
        </>
      )}
    </>
  );
}

import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, Status, formatNumber } from '../ui.tsx';
import { RuleBuilder } from './RuleBuilder.tsx';
import { Pager, useCursors, useSettled } from './kit.tsx';
import { compile, fieldChoices, rootOf, type Group } from './rules.ts';

type Segment = components['schemas']['Segment'];

function Members({ segment }: { segment: Segment }) {
  const paging = useCursors(segment.updated_at);
  const members = useQuery({
    queryKey: ['segment-members', segment.id, segment.updated_at, paging.cursor],
    queryFn: () =>
      api()
        .segments.contacts(segment.id, { limit: 50, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  return (
    <section className="stack" aria-labelledby="segment-members">
      <h2 id="segment-members">Members now</h2>
      <ErrorMessage error={members.error} retry={() => void members.refetch()} />
      {members.isPending ? (
        <Loading />
      ) : !members.data?.data.length ? (
        <Empty title="No contact matches the saved rules">
          <p>Loosen the rules above and save, or add contacts that fit them.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table aria-busy={members.isFetching}>
              <caption className="sr-only">Members of {segment.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col">Tags</th>
                </tr>
              </thead>
              <tbody>
                {members.data.data.map((contact) => (
                  <tr key={contact.id}>
                    <td>
                      <Link to={`/contacts/${contact.id}`}>{contact.email}</Link>
                    </td>
                    <td>
                      <Status value={contact.status} />
                    </td>
                    <td>{contact.tags.join(', ')}</td>
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

function Editor({ segment }: { segment: Segment | null }) {
  const client = useQueryClient();
  const [name, setName] = useState(segment?.name ?? '');
  const [description, setDescription] = useState(segment?.description ?? '');
  const [root, setRoot] = useState<Group>(() => rootOf(segment?.rules));
  const fields = useQuery({ queryKey: ['fields'], queryFn: () => api().customFields.list() });
  const campaigns = useQuery({ queryKey: ['campaigns', 'choices'], queryFn: () => api().campaigns.list({ limit: 100 }).firstPage() });
  const lists = useQuery({ queryKey: ['lists', 'choices'], queryFn: () => api().lists.list({ limit: 50 }).firstPage() });
  const choices = useMemo(() => fieldChoices(fields.data?.data ?? []), [fields.data]);
  const compiled = compile(root, choices);
  const rules = 'rules' in compiled ? compiled.rules : null;
  const settled = useSettled(rules && JSON.stringify(rules), 300);
  const preview = useQuery({
    queryKey: ['segment-preview', settled],
    queryFn: () => api().segments.preview({ rules: JSON.parse(settled!) as Segment['rules'], sample_size: 5 }),
    enabled: Boolean(settled),
    placeholderData: keepPreviousData,
    staleTime: 0,
  });
  const save = useMutation({
    mutationFn: () => {
      const body = { name: name.trim(), description: description.trim() || null, rules: rules! };
      return segment ? api().segments.update(segment.id, body) : api().segments.create(body);
    },
    onSuccess: (saved) => {
      client.setQueryData(['segment', saved.id], saved);
      void client.invalidateQueries({ queryKey: ['segments'] });
      if (!segment) navigate(`/segments/${saved.id}`, { replace: true });
    },
  });
  const remove = useMutation({
    mutationFn: () => api().segments.delete(segment!.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['segments'] });
      navigate('/segments');
    },
  });
  return (
    <>
      <PageHeader title={segment ? segment.name : 'New segment'}>
        {segment && (
          <ConfirmButton
            label="Delete segment"
            question={`Delete the segment “${segment.name}”? Campaigns already sent keep their audience.`}
            confirm="Delete"
            danger
            onConfirm={() => remove.mutate()}
          />
        )}
      </PageHeader>
      <p className="muted">
        <Link to="/segments">All segments</Link>
      </p>
      <ErrorMessage error={remove.error} />
      <div className="editor">
        <form
          className="card stack"
          aria-labelledby="rules-title"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <h2 id="rules-title">Rules</h2>
          <div className="grid">
            <label>
              Name
              <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={200} />
            </label>
            <label>
              Description <span className="muted">(optional)</span>
              <input value={description} onChange={(event) => setDescription(event.target.value)} maxLength={1000} />
            </label>
          </div>
          <RuleBuilder root={root} onChange={setRoot} choices={choices} campaigns={campaigns.data?.data ?? []} lists={lists.data?.data ?? []} />
          <ErrorMessage error={save.error} />
          <div className="row">
            <button type="submit" className="primary" disabled={!rules || save.isPending}>
              {segment ? 'Save' : 'Save segment'}
            </button>
            {save.isSuccess && (
              <span role="status" className="muted">
                Saved.
              </span>
            )}
          </div>
        </form>
        <section className="card stack" aria-labelledby="preview-title" aria-live="polite">
          <h2 id="preview-title">Who matches now</h2>
          {'problem' in compiled ? (
            <p className="muted">{compiled.problem}</p>
          ) : (
            <>
              <ErrorMessage error={preview.error} />
              <p>
                <strong className="big" data-testid="segment-count">
                  {preview.data ? formatNumber(preview.data.count) : '…'}
                </strong>{' '}
                {preview.data?.count === 1 ? 'contact' : 'contacts'}
                {preview.isFetching && <span className="muted"> (updating)</span>}
              </p>
              {preview.data && preview.data.sample.length > 0 && (
                <ul className="tags" aria-label="The first matching contacts">
                  {preview.data.sample.map((contact) => (
                    <li key={contact.id}>
                      <Link to={`/contacts/${contact.id}`}>{contact.email}</Link>
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </section>
      </div>
      {segment && <Members segment={segment} />}
    </>
  );
}

export default function SegmentPage({ params }: { params: Record<string, string> }) {
  const isNew = params.id === 'new';
  const segment = useQuery({ queryKey: ['segment', params.id], queryFn: () => api().segments.get(params.id), enabled: !isNew });
  if (isNew) return <Editor key="new" segment={null} />;
  if (segment.isPending) return <Loading />;
  if (!segment.data) return <ErrorMessage error={segment.error} retry={() => void segment.refetch()} />;
  return <Editor key={segment.data.id} segment={segment.data} />;
}

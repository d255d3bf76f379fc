import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, formatNumber } from '../ui.tsx';
import { Pager, useCursors } from './kit.tsx';

type TagCount = components['schemas']['TagCount'];

function TagRow({ tag }: { tag: TagCount }) {
  const client = useQueryClient();
  const [name, setName] = useState(tag.name);
  const done = () => {
    void client.invalidateQueries({ queryKey: ['tags'] });
    void client.invalidateQueries({ queryKey: ['contacts'] });
  };
  const rename = useMutation({ mutationFn: () => api().tags.rename(tag.name, { name: name.trim() }), onSuccess: done });
  const remove = useMutation({ mutationFn: () => api().tags.delete(tag.name), onSuccess: done });
  return (
    <tr>
      <td>{tag.name}</td>
      <td>{formatNumber(tag.contacts)}</td>
      <td>
        <form
          className="row"
          onSubmit={(event) => {
            event.preventDefault();
            rename.mutate();
          }}
        >
          <input aria-label={`New name for ${tag.name}`} value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
          <button type="submit" disabled={rename.isPending || name.trim() === tag.name}>
            Rename
          </button>
          <ConfirmButton
            label="Delete"
            question={`Take the tag “${tag.name}” off its ${formatNumber(tag.contacts)} contacts?`}
            danger
            onConfirm={() => remove.mutate()}
          />
        </form>
        <ErrorMessage error={rename.error ?? remove.error} />
      </td>
    </tr>
  );
}

export default function Tags() {
  const paging = useCursors('');
  const tags = useQuery({
    queryKey: ['tags', paging.cursor],
    queryFn: () =>
      api()
        .tags.list({ limit: 100, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Tags" />
      <p className="muted">Renaming to a tag that exists merges the two.</p>
      <ErrorMessage error={tags.error} retry={() => void tags.refetch()} />
      {tags.isPending ? (
        <Loading />
      ) : !tags.data?.data.length ? (
        <Empty title="No tags yet">
          <p>
            Tag contacts on their page, in an <Link to="/contacts/import">import</Link>, or through the API (<code>POST /api/tags/bulk</code>).
          </p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Tags</caption>
              <thead>
                <tr>
                  <th scope="col">Tag</th>
                  <th scope="col">Contacts</th>
                  <th scope="col">Rename or delete</th>
                </tr>
              </thead>
              <tbody>
                {tags.data.data.map((tag) => (
                  <TagRow key={`${tag.name}${tag.contacts}`} tag={tag} />
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={tags.data.next_cursor} />
        </>
      )}
    </>
  );
}

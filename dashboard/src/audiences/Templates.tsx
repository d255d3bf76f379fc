import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, formatDate } from '../ui.tsx';
import { Pager, useCursors } from './kit.tsx';

export default function Templates() {
  const client = useQueryClient();
  const paging = useCursors('');
  const templates = useQuery({
    queryKey: ['templates', paging.cursor],
    queryFn: () =>
      api()
        .templates.list({ limit: 50, ...(paging.cursor ? { cursor: paging.cursor } : {}) })
        .firstPage(),
  });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => api().templates.create({ name: name.trim() }),
    onSuccess: (template) => {
      void client.invalidateQueries({ queryKey: ['templates'] });
      navigate(`/templates/${template.id}`);
    },
  });
  return (
    <>
      <PageHeader title="Templates" />
      <p className="muted">
        Reusable emails in Liquid: edit a draft, publish numbered versions, send them with <code>POST /api/emails</code> and <code>template_id</code>.
      </p>
      <form
        className="card row"
        aria-label="New template"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <label>
          New template’s name
          <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} placeholder="welcome" />
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create template
        </button>
        <ErrorMessage error={create.error} />
      </form>
      <ErrorMessage error={templates.error} retry={() => void templates.refetch()} />
      {templates.isPending ? (
        <Loading />
      ) : !templates.data?.data.length ? (
        <Empty title="No templates yet">
          <p>Name one above to start its draft.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Templates</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Subject (draft)</th>
                  <th scope="col">Published version</th>
                  <th scope="col">Changed</th>
                </tr>
              </thead>
              <tbody>
                {templates.data.data.map((template) => (
                  <tr key={template.id}>
                    <td>
                      <Link to={`/templates/${template.id}`}>{template.name}</Link>
                    </td>
                    <td>{template.subject}</td>
                    <td>{template.published_version ?? <span className="muted">not published</span>}</td>
                    <td>{formatDate(template.updated_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={templates.data.next_cursor} />
        </>
      )}
    </>
  );
}

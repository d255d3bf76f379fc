import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, ErrorMessage, Loading, PageHeader, formatDate } from '../ui.tsx';
import { pastedEmails, templateErrors } from './kit.tsx';

type Template = components['schemas']['Template'];
type Update = components['schemas']['TemplateUpdate'];

/** Template errors at their line and column; other errors as the dashboard says them. */
function Problems({ error, testId }: { error: unknown; testId: string }) {
  const located = templateErrors(error);
  if (!located) return <ErrorMessage error={error} />;
  return (
    <div role="alert" className="error" data-testid={testId}>
      <span>The template does not work:</span>
      <ul>
        {located.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </div>
  );
}

function parseData(text: string): Record<string, unknown> | string {
  if (!text.trim()) return {};
  try {
    const data: unknown = JSON.parse(text);
    return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : 'The data must be a JSON object.';
  } catch (error) {
    return `The data is not JSON: ${(error as Error).message}`;
  }
}

function Editor({ template }: { template: Template }) {
  const client = useQueryClient();
  const [draft, setDraft] = useState<Update>({
    name: template.name,
    description: template.description,
    subject: template.subject,
    html: template.html,
    text: template.text,
  });
  const [dataText, setDataText] = useState('{\n  "first_name": "Ada"\n}');
  const [version, setVersion] = useState('');
  const [to, setTo] = useState('');
  const [from, setFrom] = useState('');
  const data = parseData(dataText);
  const refresh = (saved?: Template) => {
    if (saved) client.setQueryData(['template', template.id], saved);
    void client.invalidateQueries({ queryKey: ['templates'] });
    void client.invalidateQueries({ queryKey: ['template-versions', template.id] });
  };
  const save = useMutation({
    mutationFn: () => api().templates.update(template.id, { ...draft, description: draft.description || null, text: draft.text || null }),
    onSuccess: (saved) => refresh(saved),
  });
  const publish = useMutation({
    mutationFn: async () => {
      await api().templates.update(template.id, { ...draft, description: draft.description || null, text: draft.text || null });
      await api().templates.publish(template.id);
      return api().templates.get(template.id);
    },
    onSuccess: (saved) => refresh(saved),
  });
  const render = useMutation({
    mutationFn: async () => {
      if (typeof data === 'string') throw new Error(data);
      // The server renders what is stored: the draft is saved first.
      if (!version) refresh(await api().templates.update(template.id, { ...draft, description: draft.description || null, text: draft.text || null }));
      return api().templates.render(template.id, { data, ...(version ? { version: Number(version) } : {}) });
    },
  });
  const test = useMutation({
    mutationFn: () => {
      if (typeof data === 'string') throw new Error(data);
      return api().templates.test(template.id, { emails: pastedEmails(to), from_email: from.trim(), data, ...(version ? { version: Number(version) } : {}) });
    },
  });
  const versions = useQuery({ queryKey: ['template-versions', template.id], queryFn: () => api().templates.versions(template.id, { limit: 100 }).firstPage() });
  const remove = useMutation({
    mutationFn: () => api().templates.delete(template.id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['templates'] });
      navigate('/templates');
    },
  });
  const set = (name: keyof Update) => (event: { target: { value: string } }) => setDraft({ ...draft, [name]: event.target.value });
  return (
    <>
      <PageHeader title={template.name}>
        <ConfirmButton
          label="Delete template"
          question={`Delete the template “${template.name}” and its versions?`}
          confirm="Delete"
          danger
          onConfirm={() => remove.mutate()}
        />
      </PageHeader>
      <p className="muted">
        <Link to="/templates">All templates</Link> · Published version: <span data-testid="published-version">{template.published_version ?? 'none'}</span>
      </p>
      <ErrorMessage error={remove.error} />
      <div className="editor">
        <form
          className="card stack"
          aria-labelledby="draft-title"
          onSubmit={(event) => {
            event.preventDefault();
            save.mutate();
          }}
        >
          <h2 id="draft-title">Draft</h2>
          <div className="grid">
            <label>
              Name
              <input value={draft.name ?? ''} onChange={set('name')} required maxLength={100} />
            </label>
            <label>
              Description <span className="muted">(optional)</span>
              <input value={draft.description ?? ''} onChange={set('description')} maxLength={1000} />
            </label>
          </div>
          <label>
            Subject (Liquid)
            <input value={draft.subject ?? ''} onChange={set('subject')} maxLength={998} />
          </label>
          <label>
            HTML (Liquid)
            <textarea rows={12} value={draft.html ?? ''} onChange={set('html')} spellCheck={false} />
          </label>
          <label>
            Plain text (Liquid) <span className="muted">(empty: derived from the HTML)</span>
            <textarea rows={4} value={draft.text ?? ''} onChange={set('text')} spellCheck={false} />
          </label>
          <Problems error={save.error ?? publish.error} testId="save-error" />
          <div className="row">
            <button type="submit" disabled={save.isPending}>
              Save draft
            </button>
            <button type="button" className="primary" disabled={publish.isPending} onClick={() => publish.mutate()}>
              Publish a version
            </button>
            <span role="status" className="muted">
              {publish.isSuccess ? `Published version ${template.published_version}.` : save.isSuccess ? 'Draft saved.' : ''}
            </span>
          </div>
        </form>
        <section className="card stack" aria-labelledby="render-title">
          <h2 id="render-title">Render and test</h2>
          <label>
            Version
            <select value={version} onChange={(event) => setVersion(event.target.value)}>
              <option value="">The draft</option>
              {versions.data?.data.map((v) => (
                <option key={v.id} value={v.version}>
                  Version {v.version}
                </option>
              ))}
            </select>
          </label>
          <label>
            Data (JSON)
            <textarea
              rows={4}
              value={dataText}
              onChange={(event) => setDataText(event.target.value)}
              spellCheck={false}
              aria-invalid={typeof data === 'string'}
            />
          </label>
          {typeof data === 'string' && <p className="muted">{data}</p>}
          <div className="row">
            <button type="button" className="primary" disabled={render.isPending} onClick={() => render.mutate()}>
              Render
            </button>
          </div>
          <Problems error={render.error} testId="render-error" />
          {render.data && (
            <>
              <p>
                Subject: <strong data-testid="rendered-subject">{render.data.subject}</strong>
              </p>
              <iframe title="Rendered email" className="preview" sandbox="" srcDoc={render.data.html} />
            </>
          )}
          <h3>Test send</h3>
          <div className="grid">
            <label>
              To <span className="muted">(up to 10, comma-separated)</span>
              <input value={to} onChange={(event) => setTo(event.target.value)} />
            </label>
            <label>
              From (email)
              <input type="email" value={from} onChange={(event) => setFrom(event.target.value)} />
            </label>
          </div>
          <div className="row">
            <button type="button" disabled={!to.trim() || !from.trim() || test.isPending} onClick={() => test.mutate()}>
              Send test
            </button>
            <span role="status" className="muted">
              {test.isSuccess ? `Sent to ${pastedEmails(to).join(', ')}.` : ''}
            </span>
          </div>
          <Problems error={test.error} testId="test-error" />
        </section>
      </div>
      <section className="stack" aria-labelledby="versions-title">
        <h2 id="versions-title">Published versions</h2>
        <ErrorMessage error={versions.error} retry={() => void versions.refetch()} />
        {!versions.data?.data.length ? (
          <p className="muted">None yet: “Publish a version” freezes the draft as version 1; sends by template use the latest version.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Published versions</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Partials and layouts</th>
                  <th scope="col">Published</th>
                </tr>
              </thead>
              <tbody>
                {versions.data.data.map((v) => (
                  <tr key={v.id}>
                    <td>{v.version}</td>
                    <td>{v.subject}</td>
                    <td>{v.partials.join(', ')}</td>
                    <td>{formatDate(v.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}

export default function TemplatePage({ params }: { params: Record<string, string> }) {
  const template = useQuery({ queryKey: ['template', params.id], queryFn: () => api().templates.get(params.id) });
  if (template.isPending) return <Loading />;
  if (!template.data) return <ErrorMessage error={template.error} retry={() => void template.refetch()} />;
  return <Editor key={template.data.id} template={template.data} />;
}

import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type DragEvent } from 'react';
import { Link } from '../router.tsx';
import { api } from '../session.ts';
import { ErrorMessage, PageHeader, Status, formatNumber } from '../ui.tsx';

type ImportMode = components['schemas']['ImportMode'];
const FIELDS = ['email', 'first_name', 'last_name', 'tags', 'status'];
const PREVIEW_BYTES = 64 * 1024;
const PREVIEW_ROWS = 5;
/** The mapping target that leaves a column out of the import. */
const IGNORE = '-';
/** Rows in error shown on the page; the errors file holds them all. */
const ERRORS_SHOWN = 10;

/** The first records of a CSV, for the preview only (the server parses the file itself). */
function previewCsv(text: string, limit = PREVIEW_ROWS + 1): string[][] {
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length && rows.length < limit; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === delimiter) {
      row.push(cell);
      cell = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (rows.length < limit && (cell || row.length)) rows.push([...row, cell]);
  return rows;
}

function Progress({ id }: { id: string }) {
  const client = useQueryClient();
  const job = useQuery({
    queryKey: ['imports', id],
    queryFn: () => api().contactImports.get(id),
    refetchInterval: (query) => (query.state.data && ['completed', 'failed'].includes(query.state.data.status) ? false : 500),
  });
  const errors = useMutation({
    mutationFn: () => api().contactImports.errors(id),
    onSuccess: (csv) => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      link.download = `import-${id}-errors.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    },
  });
  const data = job.data;
  const done = data?.status === 'completed';
  useEffect(() => {
    if (done) void client.invalidateQueries({ queryKey: ['contacts'] });
  }, [done, client]);
  if (!data) return <ErrorMessage error={job.error} />;
  const total = data.total_rows ?? 0;
  const percent = data.status === 'completed' ? 100 : total ? Math.floor((data.processed_rows / total) * 100) : 0;
  return (
    <section className="card stack" aria-labelledby="progress-title">
      <h2 id="progress-title">
        Import <Status value={data.status} />
      </h2>
      <label>
        Progress: <span data-testid="import-percent">{percent}%</span>
        <progress max={100} value={percent} aria-label="Import progress" />
      </label>
      <div className="figures">
        <div className="figure">
          Rows <strong>{formatNumber(data.processed_rows)}</strong>
        </div>
        <div className="figure">
          Created <strong data-testid="import-created">{formatNumber(data.created)}</strong>
        </div>
        <div className="figure">
          Updated <strong>{formatNumber(data.updated)}</strong>
        </div>
        <div className="figure">
          Skipped <strong>{formatNumber(data.skipped)}</strong>
        </div>
        <div className="figure">
          Failed <strong>{formatNumber(data.failed)}</strong>
        </div>
      </div>
      {data.failure && (
        <div role="alert" className="error">
          The import stopped: {JSON.stringify(data.failure)}. Fix the file and import it again.
        </div>
      )}
      {data.errors.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption>The first rows in error{data.failed > ERRORS_SHOWN ? ` (${formatNumber(ERRORS_SHOWN)} of ${formatNumber(data.failed)})` : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">Email</th>
                <th scope="col">Problem</th>
              </tr>
            </thead>
            <tbody>
              {data.errors.slice(0, ERRORS_SHOWN).map((error) => (
                <tr key={error.row}>
                  <td>{formatNumber(error.row)}</td>
                  <td>{error.email ?? '—'}</td>
                  <td>
                    <code>{error.code}</code> {error.detail}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data.failed > 0 && (
        <div>
          <button type="button" onClick={() => errors.mutate()}>
            Download the rows in error (CSV)
          </button>
          <ErrorMessage error={errors.error} />
        </div>
      )}
      {data.status === 'completed' && (
        <p>
          <Link to="/contacts">See the contacts</Link>
        </p>
      )}
    </section>
  );
}

export default function Import() {
  const [file, setFile] = useState<File | null>(null);
  const [rows, setRows] = useState<string[][]>([]);
  const [mapping, setMapping] = useState<Record<string, string>>({});
  const [mode, setMode] = useState<ImportMode>('upsert');
  const [tags, setTags] = useState('');
  const [listIds, setListIds] = useState<string[]>([]);
  const lists = useQuery({ queryKey: ['lists', 'choices'], queryFn: () => api().lists.list({ limit: 50 }).firstPage() });
  const [importId, setImportId] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const upload = useMutation({
    mutationFn: () => {
      const renames = Object.fromEntries(Object.entries(mapping).filter(([from, to]) => to && to !== from.trim().toLowerCase()));
      return api().contacts.importCsv(file!, {
        mode,
        tags: tags
          .split(',')
          .map((tag) => tag.trim())
          .filter(Boolean),
        mapping: renames,
        list_ids: listIds,
      });
    },
    onSuccess: (job) => setImportId(job.id),
  });
  const choose = async (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    setImportId(null);
    upload.reset();
    const preview = previewCsv(await chosen.slice(0, PREVIEW_BYTES).text());
    setRows(preview);
    setMapping(Object.fromEntries((preview[0] ?? []).map((header) => [header, header.trim().toLowerCase()])));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void choose(event.dataTransfer.files[0]);
  };
  const headers = rows[0] ?? [];
  return (
    <>
      <PageHeader title="Import contacts" />
      <p>
        <Link to="/contacts">← Contacts</Link>
      </p>
      <section className="card stack" aria-labelledby="step-file">
        <h2 id="step-file">1. Choose a CSV file</h2>
        <div
          className={dragging ? 'dropzone over' : 'dropzone'}
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <label>
            Drop a file here, or choose one
            <input type="file" accept=".csv,text/csv" onChange={(event) => void choose(event.target.files?.[0])} />
          </label>
          <p className="muted">A header row; email, first_name, last_name, tags (; separated) and status; other columns become attributes.</p>
        </div>
      </section>
      {file && headers.length > 0 && (
        <section className="card stack" aria-labelledby="step-map">
          <h2 id="step-map">2. Check the columns</h2>
          <p className="muted">
            {file.name}: the first {Math.max(0, rows.length - 1)} rows.
          </p>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Preview and column mapping</caption>
              <thead>
                <tr>
                  {headers.map((header, index) => (
                    <th key={index} scope="col">
                      <label>
                        {header || `column ${index + 1}`}
                        <select value={mapping[header] ?? ''} onChange={(event) => setMapping({ ...mapping, [header]: event.target.value })}>
                          {FIELDS.map((name) => (
                            <option key={name} value={name}>
                              {name}
                            </option>
                          ))}
                          {!FIELDS.includes(header.trim().toLowerCase()) && <option value={header.trim().toLowerCase()}>attribute “{header}”</option>}
                          <option value={IGNORE}>ignore this column</option>
                        </select>
                      </label>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.slice(1).map((row, index) => (
                  <tr key={index}>
                    {headers.map((_, column) => (
                      <td key={column}>{row[column]}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="grid">
            <label>
              Mode
              <select value={mode} onChange={(event) => setMode(event.target.value as ImportMode)}>
                <option value="upsert">Add new contacts and update existing ones</option>
                <option value="create_only">Add new contacts only</option>
                <option value="update_only">Update existing contacts only</option>
              </select>
            </label>
            <label>
              Tags for every contact <span className="muted">(comma-separated)</span>
              <input value={tags} onChange={(event) => setTags(event.target.value)} placeholder="imported, spring" />
            </label>
          </div>
          {(lists.data?.data.length ?? 0) > 0 && (
            <fieldset>
              <legend>Lists every contact joins (as subscribed)</legend>
              {lists.data?.data.map((list) => (
                <label key={list.id} className="check">
                  <input
                    type="checkbox"
                    checked={listIds.includes(list.id)}
                    onChange={(event) => setListIds(event.target.checked ? [...listIds, list.id] : listIds.filter((id) => id !== list.id))}
                  />{' '}
                  {list.name}
                </label>
              ))}
            </fieldset>
          )}
          <ErrorMessage error={lists.error} />
          <ErrorMessage error={upload.error} />
          <div>
            <button type="button" className="primary" disabled={upload.isPending || Boolean(importId)} onClick={() => upload.mutate()}>
              {upload.isPending ? 'Uploading…' : 'Import'}
            </button>
          </div>
        </section>
      )}
      {importId && <Progress id={importId} />}
    </>
  );
}

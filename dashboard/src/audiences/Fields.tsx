import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader } from '../ui.tsx';
import { commaList } from './kit.tsx';

type Field = components['schemas']['ContactField'];
type FieldType = components['schemas']['ContactFieldType'];
const TYPES: FieldType[] = ['text', 'number', 'date', 'boolean', 'choice'];

function FieldRow({ field }: { field: Field }) {
  const client = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [label, setLabel] = useState(field.label);
  const [options, setOptions] = useState(field.options.join(', '));
  const done = () => void client.invalidateQueries({ queryKey: ['fields'] });
  const save = useMutation({
    mutationFn: () => api().customFields.update(field.id, { label: label.trim(), ...(field.type === 'choice' ? { options: commaList(options) } : {}) }),
    onSuccess: () => {
      setEditing(false);
      done();
    },
  });
  const remove = useMutation({ mutationFn: () => api().customFields.delete(field.id), onSuccess: done });
  return (
    <tr>
      <td>
        <code>{field.key}</code>
      </td>
      <td>{editing ? <input aria-label={`Label of ${field.key}`} value={label} onChange={(event) => setLabel(event.target.value)} /> : field.label}</td>
      <td>{field.type}</td>
      <td>
        {editing && field.type === 'choice' ? (
          <input aria-label={`Options of ${field.key}`} value={options} onChange={(event) => setOptions(event.target.value)} />
        ) : (
          field.options.join(', ')
        )}
      </td>
      <td>
        <div className="row">
          {editing ? (
            <>
              <button type="button" className="primary" onClick={() => save.mutate()} disabled={save.isPending}>
                Save
              </button>
              <button type="button" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </>
          ) : (
            <button type="button" aria-label={`Edit ${field.key}`} onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          <ConfirmButton
            label="Delete"
            question={`Delete the field “${field.key}”? Contacts keep their values under this key, unchecked.`}
            danger
            onConfirm={() => remove.mutate()}
          />
        </div>
        <ErrorMessage error={save.error ?? remove.error} />
      </td>
    </tr>
  );
}

export default function Fields() {
  const client = useQueryClient();
  const fields = useQuery({ queryKey: ['fields'], queryFn: () => api().customFields.list() });
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const [type, setType] = useState<FieldType>('text');
  const [options, setOptions] = useState('');
  const create = useMutation({
    mutationFn: () => api().customFields.create({ key: key.trim(), label: label.trim(), type, ...(type === 'choice' ? { options: commaList(options) } : {}) }),
    onSuccess: () => {
      setKey('');
      setLabel('');
      setOptions('');
      void client.invalidateQueries({ queryKey: ['fields'] });
    },
  });
  return (
    <>
      <PageHeader title="Custom fields" />
      <p className="muted">Typed keys of contacts’ attributes: values under them are checked on every write and imports, and segments compare them by type.</p>
      <form
        className="card stack"
        aria-labelledby="new-field"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <h2 id="new-field">New field</h2>
        <div className="grid">
          <label>
            Key <span className="muted">(lower-case letters, digits, _)</span>
            <input value={key} onChange={(event) => setKey(event.target.value)} required pattern="[a-z][a-z0-9_]{0,63}" />
          </label>
          <label>
            Label
            <input value={label} onChange={(event) => setLabel(event.target.value)} required maxLength={200} />
          </label>
          <label>
            Type
            <select value={type} onChange={(event) => setType(event.target.value as FieldType)}>
              {TYPES.map((value) => (
                <option key={value}>{value}</option>
              ))}
            </select>
          </label>
          {type === 'choice' && (
            <label>
              Options <span className="muted">(comma-separated)</span>
              <input value={options} onChange={(event) => setOptions(event.target.value)} required />
            </label>
          )}
        </div>
        <ErrorMessage error={create.error} />
        <div className="row">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create field
          </button>
        </div>
      </form>
      <ErrorMessage error={fields.error} retry={() => void fields.refetch()} />
      {fields.isPending ? (
        <Loading />
      ) : !fields.data?.data.length ? (
        <Empty title="No custom fields yet">
          <p>Create one above to type an attribute (a plan, a score, a birthday) and compare it by type in segments.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Custom fields</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Options</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {fields.data.data.map((field) => (
                <FieldRow key={`${field.id}${field.updated_at}`} field={field} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

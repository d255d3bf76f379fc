import type { components } from '@sendline/sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, ErrorMessage, formatNumber } from '../ui.tsx';

type BulkAction = components['schemas']['ContactBulkAction'];
export type BulkResult = components['schemas']['ContactBulkResult'];
export type ContactFilter = components['schemas']['ContactListFilters'];
type ExportFilters = components['schemas']['ContactExportFilters'];

/** As many contacts as one export takes by id. */
const MAX_EXPORT_IDS = 10_000;

/** The contacts an action is for: those ticked, or every one the filters match. */
export type BulkTarget = { ids: string[] } | { filter: ContactFilter; count: number };

const ACTIONS: { value: BulkAction; label: string }[] = [
  { value: 'tag', label: 'Add tags' },
  { value: 'untag', label: 'Remove tags' },
  { value: 'add_to_list', label: 'Add to a list' },
  { value: 'remove_from_list', label: 'Remove from a list' },
  { value: 'delete', label: 'Delete' },
];

const splitTags = (text: string) =>
  text
    .split(',')
    .map((tag) => tag.trim())
    .filter(Boolean);

/** Tag, untag, add to or remove from a list, or delete the target, through `POST /contacts/bulk`. */
export function BulkActions({ target, onDone }: { target: BulkTarget; onDone: (result: BulkResult) => void }) {
  const [action, setAction] = useState<BulkAction>('tag');
  const [tags, setTags] = useState('');
  const [listId, setListId] = useState('');
  const byTags = action === 'tag' || action === 'untag';
  const byList = action === 'add_to_list' || action === 'remove_from_list';
  const lists = useQuery({ queryKey: ['lists', 'choices'], queryFn: () => api().lists.list({ limit: 50 }).firstPage(), enabled: byList });
  const run = useMutation({
    mutationFn: () =>
      api().contacts.bulk({
        action,
        ...(byTags ? { tags: splitTags(tags) } : {}),
        ...(byList ? { list_id: listId } : {}),
        ...('ids' in target ? { contact_ids: target.ids } : { filter: target.filter }),
      }),
    onSuccess: onDone,
  });
  const size = 'ids' in target ? `${formatNumber(target.ids.length)} selected` : `all ${formatNumber(target.count)} matching`;
  const ready = (!byTags || splitTags(tags).length > 0) && (!byList || listId !== '') && !run.isPending;
  return (
    <section className="card stack" aria-labelledby="bulk-title">
      <h2 id="bulk-title">Act on {size}</h2>
      <div className="row filters">
        <label>
          Action
          <select value={action} onChange={(event) => setAction(event.target.value as BulkAction)}>
            {ACTIONS.map(({ value, label }) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
        {byTags && (
          <label>
            Tags <span className="muted">(comma-separated)</span>
            <input value={tags} onChange={(event) => setTags(event.target.value)} placeholder="vip, webinar" />
          </label>
        )}
        {byList && (
          <label>
            List
            <select value={listId} onChange={(event) => setListId(event.target.value)}>
              <option value="">Choose a list</option>
              {lists.data?.data.map((list) => (
                <option key={list.id} value={list.id}>
                  {list.name}
                </option>
              ))}
            </select>
          </label>
        )}
        {action === 'delete' ? (
          <ConfirmButton
            label="Delete contacts"
            question={`Delete ${size} contacts? Their data goes with them; this cannot be undone.`}
            confirm="Delete"
            danger
            disabled={!ready}
            onConfirm={() => run.mutate()}
          />
        ) : (
          <button type="button" className="primary" disabled={!ready} onClick={() => run.mutate()}>
            Apply
          </button>
        )}
        {'ids' in target && target.ids.length <= MAX_EXPORT_IDS && <ExportButton filters={{ contact_ids: target.ids }} label="Export selected (CSV)" />}
      </div>
      <ErrorMessage error={run.error} />
    </section>
  );
}

/** Exports the contacts the filters match (all matching, or those ticked) as CSV (`POST /contacts/exports`), then downloads it. */
export function ExportButton({ filters, label }: { filters: ExportFilters; label: string }) {
  const run = useMutation({
    mutationFn: async () => {
      const started = await api().contactExports.create(filters);
      const done = await api().contactExports.wait(started.id);
      if (done.status !== 'completed') throw new Error(`The export failed: ${done.error ?? 'unknown reason'}`);
      const csv = await api().contactExports.download(done.id);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([csv], { type: 'text/csv' }));
      link.download = `contacts-${done.id}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    },
  });
  return (
    <>
      <button type="button" disabled={run.isPending} onClick={() => run.mutate()}>
        {run.isPending ? 'Exporting…' : label}
      </button>
      <ErrorMessage error={run.error} />
    </>
  );
}

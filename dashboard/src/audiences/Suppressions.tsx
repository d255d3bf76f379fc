import type { components } from '@sendline/sdk';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../session.ts';
import { ConfirmButton, Empty, ErrorMessage, Loading, PageHeader, Status, formatDate } from '../ui.tsx';
import { Pager, pastedEmails, useCursors, useSettled } from './kit.tsx';

type Reason = components['schemas']['SuppressionReason'];
type Suppression = components['schemas']['Suppression'];
type AddResult = components['schemas']['SuppressionAddResult'];
const REASONS: Reason[] = ['manual', 'unsubscribed', 'bounced', 'complained'];

const said = (r: AddResult) => `Added ${r.added}; ${r.existing} already there; ${r.contacts_suppressed} subscribed contacts suppressed.`;

function AddForm() {
  const client = useQueryClient();
  const [text, setText] = useState('');
  const [reason, setReason] = useState<Reason>('manual');
  const [detail, setDetail] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [outcome, setOutcome] = useState('');
  const done = (message: string) => {
    setOutcome(message);
    void client.invalidateQueries({ queryKey: ['suppressions'] });
    void client.invalidateQueries({ queryKey: ['contacts'] });
  };
  const common = { reason, ...(detail.trim() ? { detail: detail.trim() } : {}) };
  const add = useMutation({
    mutationFn: () => api().suppressions.create({ emails: pastedEmails(text), ...common }),
    onSuccess: (r) => {
      setText('');
      done(said(r));
    },
  });
  const importCsv = useMutation({
    mutationFn: async () => api().suppressions.importCsv({ csv: await file!.text(), ...common }),
    onSuccess: (r) =>
      done(`${said(r)}${r.invalid ? ` ${r.invalid} rows are not addresses: ${r.invalid_rows.map((row) => `row ${row.row} “${row.value}”`).join(', ')}.` : ''}`),
  });
  return (
    <form className="card stack" aria-labelledby="add-suppressions" onSubmit={(event) => event.preventDefault()}>
      <h2 id="add-suppressions">Suppress addresses</h2>
      <div className="grid">
        <label>
          Reason
          <select value={reason} onChange={(event) => setReason(event.target.value as Reason)}>
            {REASONS.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
        <label>
          Note <span className="muted">(optional)</span>
          <input value={detail} onChange={(event) => setDetail(event.target.value)} maxLength={500} />
        </label>
      </div>
      <label>
        Addresses <span className="muted">(one a line, or separated by commas; up to 10,000)</span>
        <textarea rows={3} value={text} onChange={(event) => setText(event.target.value)} spellCheck={false} />
      </label>
      <div className="row">
        <button type="button" className="primary" disabled={!pastedEmails(text).length || add.isPending} onClick={() => add.mutate()}>
          Suppress
        </button>
      </div>
      <label>
        Or a CSV file <span className="muted">(an address in the first cell of each row)</span>
        <input type="file" accept=".csv,text/csv,text/plain" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
      </label>
      <div className="row">
        <button type="button" disabled={!file || importCsv.isPending} onClick={() => importCsv.mutate()}>
          Import the CSV
        </button>
      </div>
      <ErrorMessage error={add.error ?? importCsv.error} />
      <p role="status" className="muted">
        {outcome}
      </p>
    </form>
  );
}

function Remove({ suppression }: { suppression: Suppression }) {
  const client = useQueryClient();
  const [why, setWhy] = useState('');
  const remove = useMutation({
    mutationFn: () => api().suppressions.delete(suppression.id, { reason: why.trim() || 'removed from the dashboard' }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['suppressions'] });
      void client.invalidateQueries({ queryKey: ['contacts'] });
    },
  });
  const who = suppression.email ?? 'an erased address';
  return (
    <div className="row">
      <input
        aria-label={`Why ${who} may receive again`}
        placeholder="why (kept as the reason)"
        value={why}
        onChange={(event) => setWhy(event.target.value)}
        maxLength={500}
      />
      <ConfirmButton
        label="Remove"
        question={`Take ${who} off the list? A contact with it becomes subscribed again.`}
        danger
        disabled={!suppression.email}
        onConfirm={() => remove.mutate()}
      />
      <ErrorMessage error={remove.error} />
    </div>
  );
}

export default function Suppressions() {
  const [email, setEmail] = useState('');
  const [reason, setReason] = useState<Reason | ''>('');
  const filters = useSettled({ email: email.trim(), reason });
  const paging = useCursors(JSON.stringify(filters));
  const list = useQuery({
    queryKey: ['suppressions', filters, paging.cursor],
    queryFn: () =>
      api()
        .suppressions.list({
          limit: 50,
          ...(filters.email ? { email: filters.email } : {}),
          ...(filters.reason ? { reason: filters.reason } : {}),
          ...(paging.cursor ? { cursor: paging.cursor } : {}),
        })
        .firstPage(),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <PageHeader title="Suppressions" />
      <p className="muted">Addresses the account never sends campaigns to, contacts or not.</p>
      <AddForm />
      <form className="row filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Address
          <input type="search" value={email} onChange={(event) => setEmail(event.target.value)} placeholder="someone@example.com" />
        </label>
        <label>
          Reason
          <select value={reason} onChange={(event) => setReason(event.target.value as Reason | '')}>
            <option value="">Any</option>
            {REASONS.map((value) => (
              <option key={value}>{value}</option>
            ))}
          </select>
        </label>
      </form>
      <ErrorMessage error={list.error} retry={() => void list.refetch()} />
      {list.isPending ? (
        <Loading />
      ) : !list.data?.data.length ? (
        <Empty title={filters.email || filters.reason ? 'No suppression matches' : 'No suppressed addresses'}>
          <p>Bounces, complaints and unsubscribes land here by themselves; add others above.</p>
        </Empty>
      ) : (
        <>
          <div className="table-wrap">
            <table aria-busy={list.isFetching}>
              <caption className="sr-only">Suppressed addresses</caption>
              <thead>
                <tr>
                  <th scope="col">Address</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Source</th>
                  <th scope="col">Note</th>
                  <th scope="col">Added</th>
                  <th scope="col">Remove</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((s) => (
                  <tr key={s.id}>
                    <td>{s.email ?? <span className="muted">erased</span>}</td>
                    <td>
                      <Status value={s.reason} />
                    </td>
                    <td>{s.source.replace(/_/g, ' ')}</td>
                    <td>{s.detail}</td>
                    <td>{formatDate(s.created_at)}</td>
                    <td>
                      <Remove suppression={s} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager paging={paging} nextCursor={list.data.next_cursor} />
        </>
      )}
    </>
  );
}

import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { ConfirmButton, CopyButton, ErrorMessage, Loading, PageHeader, Status, formatDate } from '../ui.tsx';

type Domain = components['schemas']['Domain'];
type DomainRecord = components['schemas']['DomainRecord'];

const PURPOSES: Record<DomainRecord['purpose'], string> = {
  dkim: 'DKIM key',
  return_path: 'Return path',
  spf: 'SPF',
  dmarc: 'DMARC',
  tracking: 'Tracking links',
};

function RecordRow({ record }: { record: DomainRecord }) {
  return (
    <tr>
      <th scope="row">
        {PURPOSES[record.purpose]}
        <div className="muted">{record.required ? 'required' : record.purpose === 'tracking' ? 'optional' : 'advice'}</div>
      </th>
      <td>{record.type}</td>
      <td>
        <code className="record-value">{record.name}</code> <CopyButton text={record.name} label="Copy name" />
      </td>
      <td>
        <code className="record-value">{record.value}</code> <CopyButton text={record.value} label="Copy value" />
        {record.found && (
          <div className="muted">
            Found instead: <code>{record.found.join(' · ')}</code>
          </div>
        )}
      </td>
      <td>
        <Status value={record.status} />
      </td>
    </tr>
  );
}

export default function DomainPage({ params }: { params: Record<string, string> }) {
  const client = useQueryClient();
  const id = params.id;
  const domain = useQuery({ queryKey: ['domain', id], queryFn: () => api().domains.get(id) });
  const updated = (next: Domain) => {
    client.setQueryData(['domain', id], next);
    void client.invalidateQueries({ queryKey: ['domains'] });
  };
  const verify = useMutation({ mutationFn: () => api().domains.verify(id), onSuccess: updated });
  const rotate = useMutation({ mutationFn: () => api().domains.rotateDkim(id), onSuccess: updated });
  const retire = useMutation({ mutationFn: () => api().domains.retireDkim(id), onSuccess: updated });
  const remove = useMutation({
    mutationFn: () => api().domains.delete(id),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['domains'] });
      navigate('/domains');
    },
  });
  if (domain.isPending) return <Loading />;
  if (!domain.data) return <ErrorMessage error={domain.error} retry={() => void domain.refetch()} />;
  const d = domain.data;
  return (
    <>
      <PageHeader title={d.name}>
        <Link to="/domains">All domains</Link>
      </PageHeader>
      <p>
        <Status value={d.status} /> <span className="muted">Last checked {formatDate(d.checked_at)}</span>
        {d.verified_at && <span className="muted"> · verified {formatDate(d.verified_at)}</span>}
      </p>
      <section className="card stack" aria-labelledby="records">
        <h2 id="records">DNS records</h2>
        <p className="muted">
          Publish these at your DNS host, then verify. The DKIM key and the return path are required; a long TXT value may be split into strings of 255
          characters.
        </p>
        <div className="table-wrap">
          <table>
            <caption className="sr-only">DNS records of {d.name}</caption>
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {d.records.map((record) => (
                <RecordRow key={`${record.purpose} ${record.name}`} record={record} />
              ))}
            </tbody>
          </table>
        </div>
        <ErrorMessage error={verify.error} />
        <div>
          <button type="button" className="primary" disabled={verify.isPending} onClick={() => verify.mutate()}>
            {verify.isPending ? 'Looking them up…' : 'Verify now'}
          </button>
        </div>
      </section>
      <section className="card stack" aria-labelledby="dkim">
        <h2 id="dkim">DKIM key</h2>
        <p>
          Signing with selector <code>{d.dkim_selector}</code>.
          {d.next_dkim_selector && (
            <>
              {' '}
              A new key, <code>{d.next_dkim_selector}</code>, waits: publish its record beside the current one, verify, then switch to it.
            </>
          )}
        </p>
        <ErrorMessage error={rotate.error ?? retire.error} />
        <div className="row">
          {d.next_dkim_selector ? (
            <button type="button" disabled={retire.isPending} onClick={() => retire.mutate()}>
              Switch to the new key
            </button>
          ) : (
            <button type="button" disabled={rotate.isPending} onClick={() => rotate.mutate()}>
              Make a new key
            </button>
          )}
        </div>
      </section>
      <ErrorMessage error={remove.error} />
      <ConfirmButton
        label="Delete domain"
        danger
        question={`Delete ${d.name}? Its keys are deleted, and mail from it is no longer signed with them.`}
        onConfirm={() => remove.mutate()}
      />
    </>
  );
}

import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { FormEvent } from 'react';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, field, formatDate } from '../ui.tsx';

type Domain = components['schemas']['Domain'];

function AddDomain() {
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: (name: string) => api().domains.create({ name }),
    onSuccess: (domain: Domain) => {
      void client.invalidateQueries({ queryKey: ['domains'] });
      client.setQueryData(['domain', domain.id], domain);
      navigate(`/domains/${domain.id}`);
    },
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    add.mutate(field(new FormData(event.currentTarget), 'name').trim());
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-domain">
      <h2 id="new-domain">Add a domain</h2>
      <label>
        Domain <span className="muted">(the part of your From address after @, or a parent of it)</span>
        <input name="name" required maxLength={253} placeholder="mail.example.com" autoComplete="off" />
      </label>
      <ErrorMessage error={add.error} />
      <div>
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? 'Making its key…' : 'Add domain'}
        </button>
      </div>
    </form>
  );
}

export default function Domains() {
  const domains = useQuery({ queryKey: ['domains'], queryFn: () => api().domains.list({ limit: 100 }).firstPage() });
  return (
    <>
      <PageHeader title="Domains" />
      <p className="muted">
        Mail from a verified domain is signed with its own DKIM key, and its bounces come back through it. Once the account has a domain, mail is sent only from
        verified ones.
      </p>
      <AddDomain />
      <ErrorMessage error={domains.error} retry={domains.error ? () => void domains.refetch() : undefined} />
      {domains.isPending ? (
        <Loading />
      ) : domains.data?.data.length === 0 ? (
        <Empty title="No domains yet">
          <p>Add the domain you send from above; you will get the DNS records to publish.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Sending domains</caption>
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Last checked</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {domains.data?.data.map((domain) => (
                <tr key={domain.id}>
                  <td>
                    <Link to={`/domains/${domain.id}`}>{domain.name}</Link>
                  </td>
                  <td>
                    <Status value={domain.status} />
                  </td>
                  <td>{formatDate(domain.checked_at)}</td>
                  <td>{formatDate(domain.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

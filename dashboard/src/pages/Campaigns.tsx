import type { components } from '@sendline/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { TemplatePicker } from '../authoring/TemplatePicker.tsx';
import { Link, navigate } from '../router.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, Status, field, formatDate, formatNumber, formatRate } from '../ui.tsx';

const STARTER = `<p>Hello {{ first_name | default: "there" }},</p>
<p>Here is what is new this month.</p>
<p><a href="https://example.com/news">Read more</a></p>
<p><a href="{{ unsubscribe_url }}">Unsubscribe</a></p>`;

function NewCampaign() {
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: (body: components['schemas']['CampaignCreate']) => api().campaigns.create(body),
    onSuccess: (campaign) => {
      void client.invalidateQueries({ queryKey: ['campaigns'] });
      navigate(`/campaigns/${campaign.id}`);
    },
  });
  const [templateId, setTemplateId] = useState<string | null>(null);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const base = { name: field(form, 'name'), from_email: field(form, 'from_email') };
    create.mutate(templateId ? { ...base, template_id: templateId } : { ...base, subject: field(form, 'subject'), content: STARTER });
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="new-campaign">
      <h2 id="new-campaign">New campaign</h2>
      <div className="grid">
        <label>
          Name
          <input name="name" required maxLength={200} placeholder="November news" />
        </label>
        <TemplatePicker value={templateId} onChange={setTemplateId} />
        {!templateId && (
          <label>
            Subject
            <input name="subject" required placeholder="What is new, {{ first_name }}" />
          </label>
        )}
        <label>
          From (email)
          <input name="from_email" type="email" required placeholder="news@example.com" />
        </label>
      </div>
      <ErrorMessage error={create.error} />
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create and edit
        </button>
      </div>
    </form>
  );
}

/** A share of the campaign's messages, over the denominators the analytics rates use; a dash before there are any. */
const rate = (part: number, whole: number) => (whole > 0 ? formatRate(part / whole) : '—');

export default function Campaigns() {
  const campaigns = useQuery({ queryKey: ['campaigns'], queryFn: () => api().campaigns.list({ limit: 100, order: 'newest' }).firstPage() });
  return (
    <>
      <PageHeader title="Campaigns" />
      <NewCampaign />
      <ErrorMessage error={campaigns.error} retry={() => void campaigns.refetch()} />
      {campaigns.isPending ? (
        <Loading />
      ) : campaigns.data?.data.length === 0 ? (
        <Empty title="No campaigns yet">
          <p>Create one above: you can preview it, send yourself a test, then send it.</p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Campaigns</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Sent</th>
                <th scope="col">Open rate</th>
                <th scope="col">Click rate</th>
                <th scope="col">Bounce rate</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.data?.data.map((campaign) => (
                <tr key={campaign.id}>
                  <td>
                    <Link to={`/campaigns/${campaign.id}`}>{campaign.name}</Link>
                  </td>
                  <td>
                    <Status value={campaign.status} />
                  </td>
                  <td>
                    {rate(campaign.stats.sent, campaign.stats.recipients)}
                    <div className="muted">
                      {formatNumber(campaign.stats.sent)} of {formatNumber(campaign.stats.recipients)}
                    </div>
                  </td>
                  <td>{rate(campaign.stats.opened, campaign.stats.delivered)}</td>
                  <td>{rate(campaign.stats.clicked, campaign.stats.delivered)}</td>
                  {/* Hard bounces (the stats count no soft ones); those the relay refused were never sent, so they count in the whole too. */}
                  <td>{rate(campaign.stats.bounced, campaign.stats.sent + campaign.stats.bounced)}</td>
                  <td>{formatDate(campaign.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

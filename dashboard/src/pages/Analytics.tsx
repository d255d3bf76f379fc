import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { CampaignCharts } from '../CampaignCharts.tsx';
import { Chart } from '../Chart.tsx';
import { api } from '../session.ts';
import { Empty, ErrorMessage, Loading, PageHeader, formatNumber, formatRate } from '../ui.tsx';

const RANGES: [days: number, label: string][] = [
  [1, 'Last 24 hours'],
  [7, 'Last 7 days'],
  [30, 'Last 30 days'],
  [90, 'Last 90 days'],
  [365, 'Last year'],
];

export default function Analytics() {
  const [days, setDays] = useState(30);
  const [campaignId, setCampaignId] = useState('');
  const overview = useQuery({
    queryKey: ['analytics', 'overview', days],
    queryFn: () => api().analytics.overview({ since: new Date(Date.now() - days * 86_400_000) }),
  });
  const campaigns = useQuery({ queryKey: ['campaigns'], queryFn: () => api().campaigns.list({ limit: 100 }).firstPage() });
  const sent = campaigns.data?.data.filter((campaign) => campaign.status !== 'draft' && campaign.status !== 'scheduled') ?? [];
  const chosen = campaignId || sent[0]?.id || '';
  const o = overview.data;
  const funnel = useMemo(
    () =>
      o && {
        xAxis: { type: 'category', data: ['Sent', 'Delivered', 'Opened', 'Clicked', 'Bounced', 'Unsubscribed', 'Complaints'] },
        yAxis: { type: 'value', minInterval: 1 },
        grid: { left: 48, right: 16, top: 16, bottom: 32 },
        series: [
          {
            name: 'Messages',
            type: 'bar',
            data: [o.sent, o.delivered, o.opens.unique, o.clicks.unique, o.bounces.hard + o.bounces.soft, o.unsubscribes, o.complaints],
          },
        ],
      },
    [o],
  );
  return (
    <>
      <PageHeader title="Analytics">
        <label className="inline">
          Range
          <select value={days} onChange={(event) => setDays(Number(event.target.value))}>
            {RANGES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </PageHeader>
      <ErrorMessage error={overview.error} retry={() => void overview.refetch()} />
      {!o ? (
        overview.isPending && <Loading />
      ) : (
        <>
          <div className="figures">
            <div className="figure">
              Contacts <strong>{formatNumber(o.contacts.total)}</strong>
            </div>
            <div className="figure">
              Sent <strong data-testid="overview-sent">{formatNumber(o.sent)}</strong>
            </div>
            <div className="figure">
              Open rate <strong>{formatRate(o.rates.open_rate)}</strong>
            </div>
            <div className="figure">
              Click rate <strong>{formatRate(o.rates.click_rate)}</strong>
            </div>
            <div className="figure">
              Bounce rate <strong>{formatRate(o.rates.bounce_rate)}</strong>
            </div>
            <div className="figure">
              Revenue{' '}
              <strong>{o.conversions.revenue.length ? o.conversions.revenue.map((money) => `${money.amount} ${money.currency}`).join(', ') : '—'}</strong>
            </div>
          </div>
          {funnel && <Chart option={funnel} label="Messages sent, delivered, opened and clicked in the range" testId="overview-chart" />}
        </>
      )}
      <h2>By campaign</h2>
      {sent.length === 0 ? (
        <Empty title="No campaign sent yet">
          <p>A campaign&apos;s opens, clicks and links show here once it is sent.</p>
        </Empty>
      ) : (
        <>
          <label>
            Campaign
            <select value={chosen} onChange={(event) => setCampaignId(event.target.value)}>
              {sent.map((campaign) => (
                <option key={campaign.id} value={campaign.id}>
                  {campaign.name}
                </option>
              ))}
            </select>
          </label>
          {chosen && <CampaignCharts id={chosen} />}
        </>
      )}
    </>
  );
}

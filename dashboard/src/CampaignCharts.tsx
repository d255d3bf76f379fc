import type { components } from '@sendline/sdk';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Chart } from './Chart.tsx';
import { api } from './session.ts';
import { ErrorMessage, formatNumber, formatRate } from './ui.tsx';

type TimeSeriesPoint = components['schemas']['TimeSeriesPoint'];

/** The length of a bucket when there is one: a campaign's first 72 hours come by the hour. */
const HOUR_MS = 3_600_000;

/** A campaign's figures and charts: opens, clicks and bounces over time, rates, top links. */
export function CampaignCharts({ id }: { id: string }) {
  const figures = useQuery({ queryKey: ['analytics', 'campaign', id], queryFn: () => api().analytics.campaign(id) });
  const series = useMemo(() => {
    const points = (figures.data?.time_series ?? []).map((point) => ({ ...point, at: new Date(point.at).getTime() }));
    const last = points.at(-1);
    const previous = points.at(-2);
    // Each bucket's count is held across its bucket (a step line) up to the last one's end: the
    // one hourly bucket of a campaign's first hour draws as a line, not a lone dot.
    const end = last && last.at + (previous ? last.at - previous.at : HOUR_MS);
    const line = (name: string, count: (point: Omit<TimeSeriesPoint, 'at'>) => number) => ({
      name,
      type: 'line',
      step: 'end',
      data: [...points.map((point) => [point.at, count(point)]), ...(last && end ? [[end, count(last)]] : [])],
    });
    return {
      xAxis: { type: 'time' },
      yAxis: { type: 'value', minInterval: 1 },
      // Above the plot: ECharts 6 puts a legend at the bottom, over the time axis' labels.
      legend: { top: 0 },
      grid: { left: 40, right: 16, top: 40, bottom: 40 },
      series: [line('Opens', (point) => point.opens), line('Clicks', (point) => point.clicks), line('Bounces', (point) => point.bounces)],
    };
  }, [figures.data]);
  const links = useMemo(
    () => ({
      xAxis: { type: 'value', minInterval: 1 },
      yAxis: { type: 'category', data: (figures.data?.top_links ?? []).map((link) => link.url) },
      grid: { left: 200, right: 16, top: 16, bottom: 32 },
      series: [{ name: 'Unique clicks', type: 'bar', data: (figures.data?.top_links ?? []).map((link) => link.unique_clicks) }],
    }),
    [figures.data],
  );
  if (!figures.data) return <ErrorMessage error={figures.error} />;
  const f = figures.data;
  return (
    <section className="card stack" aria-labelledby="charts-title">
      <h2 id="charts-title">Engagement</h2>
      <div className="figures">
        <div className="figure">
          Unique opens <strong data-testid="analytics-opens">{formatNumber(f.opens.unique)}</strong>
        </div>
        <div className="figure">
          Open rate <strong>{formatRate(f.rates.open_rate)}</strong>
        </div>
        <div className="figure">
          Unique clicks <strong>{formatNumber(f.clicks.unique)}</strong>
        </div>
        <div className="figure">
          Click rate <strong>{formatRate(f.rates.click_rate)}</strong>
        </div>
        <div className="figure">
          Bounce rate <strong>{formatRate(f.rates.bounce_rate)}</strong>
        </div>
      </div>
      <Chart option={series} label="Opens, clicks and bounces over time" testId="campaign-chart" />
      {f.top_links.length > 0 && <Chart option={links} label="Top links by unique clicks" />}
    </section>
  );
}

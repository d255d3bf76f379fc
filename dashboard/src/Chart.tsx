import type { EChartsCoreOption, EChartsType } from 'echarts/core';
import { useEffect, useRef } from 'react';

/**
 * An ECharts chart on a canvas. Tooltips are drawn on the canvas too (`richText`): HTML tooltips
 * carry inline styles, which the dashboard's Content-Security-Policy refuses. ECharts' aria
 * option replaces the element's label with a description of the data, for screen readers.
 */
export function Chart({ option, label, testId }: { option: EChartsCoreOption; label: string; testId?: string }) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | null>(null);
  const latest = useRef(option);
  latest.current = option;
  useEffect(() => {
    let disposed = false;
    const resize = () => chart.current?.resize();
    void import('./echarts.ts').then(({ init }) => {
      if (disposed || !element.current) return;
      chart.current = init(element.current, undefined, { renderer: 'canvas' });
      chart.current.setOption({ aria: { enabled: true }, tooltip: { renderMode: 'richText' }, ...latest.current });
      window.addEventListener('resize', resize);
    });
    return () => {
      disposed = true;
      window.removeEventListener('resize', resize);
      chart.current?.dispose();
      chart.current = null;
    };
  }, []);
  useEffect(() => {
    chart.current?.setOption({ aria: { enabled: true }, tooltip: { renderMode: 'richText' }, ...option }, { notMerge: true });
  }, [option]);
  return (
    <figure className="chart-figure">
      <div ref={element} className="chart" role="img" aria-label={label} data-testid={testId} />
      <figcaption className="muted">{label}</figcaption>
    </figure>
  );
}

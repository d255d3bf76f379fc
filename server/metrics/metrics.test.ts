import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.ts';

describe('the metrics', () => {
  it('count recorded attempts by outcome, a relay failure (queued) as none, a render failure under relay none', async () => {
    const metrics = new Metrics();
    metrics.countMessages('campaign', [
      { relay: 'ses', status: 'delivered' },
      { relay: 'ses', status: 'bounced' },
      { relay: 'ses', status: 'deferred' },
      { relay: 'ses', status: 'queued' },
      { status: 'failed' },
    ]);
    const { values } = await metrics.messages.get();
    expect(values.map(({ labels, value }) => [labels.relay, labels.outcome, value]).sort()).toEqual([
      ['none', 'failed', 1],
      ['ses', 'bounced', 1],
      ['ses', 'deferred', 1],
      ['ses', 'sent', 1],
    ]);
  });

  it('answer a scrape whose gauges fail or hang, without those gauges', async () => {
    const metrics = new Metrics();
    metrics.gauge('test_failing', 'Fails.', () => Promise.reject(new Error('database down')));
    metrics.gauge('test_hanging', 'Never answers.', () => new Promise<number>(() => {}));
    metrics.gauge('test_by_label', 'Fails, by label.', () => Promise.reject(new Error('database down')), ['stream']);
    metrics.gauge('test_working', 'Answers.', () => 7);
    const started = Date.now();
    const text = await metrics.registry.metrics();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(text).toContain('test_working 7');
    // Unknown, not zero: a comparison in an alert rule is false for NaN.
    expect(text).toMatch(/^test_failing nan$/im);
    expect(text).toMatch(/^test_hanging nan$/im);
    expect(text).not.toMatch(/^test_by_label/m);
    expect(text).toContain('sendline_build_info{version=');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { TemplateThread, TemplateThreadStopped } from './template-thread.ts';
import { legacyKey } from '../secrets/key-ring.ts';

const heavy = { subject: 'Hi', content: `<p>${'{{ first_name }} {% if a %}b{% endif %}'.repeat(3000)}${'<b>x</b>'.repeat(60_000)}</p>` };
const light = { subject: 'Hi {{ first_name }}', content: '<p>Hello</p>' };
const broken = { subject: 'Hi', content: '<p>{% if %}</p>' };

describe('the template thread', () => {
  let thread: TemplateThread;
  afterEach(() => thread.close());

  it('fails only the job that ran too long; the jobs queued behind it run in a new thread', async () => {
    thread = new TemplateThread({ publicUrl: 'https://mail.example.test', secretKeys: [legacyKey('a-secret-that-is-long-enough-for-tests-000000')] }, 150);
    const started = performance.now();
    while (performance.now() - started < 2000) {
      // Make sure the heavy job really takes longer than the limit on this machine.
      const probe = new TemplateThread({ publicUrl: 'https://mail.example.test', secretKeys: [legacyKey('a-secret-that-is-long-enough-for-tests-000000')] });
      const t0 = performance.now();
      await probe.errors(heavy);
      await probe.close();
      if (performance.now() - t0 > 300) break;
      heavy.content += heavy.content;
    }
    const outcomes = await Promise.allSettled([thread.errors(heavy), thread.errors(light), thread.errors(broken)]);
    expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('took longer') } });
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: [] });
    expect(outcomes[2]).toMatchObject({ status: 'fulfilled', value: [{ pointer: '/content' }] });
  });

  it('refuses jobs once stopping, as a stop rather than as bad content', async () => {
    thread = new TemplateThread({ publicUrl: 'https://mail.example.test', secretKeys: [legacyKey('a-secret-that-is-long-enough-for-tests-000000')] });
    // Its refusal is awaited from the start: it comes while close() runs.
    const queued = expect(thread.errors(light)).rejects.toBeInstanceOf(TemplateThreadStopped);
    await thread.close();
    await queued;
    await expect(thread.errors(light)).rejects.toBeInstanceOf(TemplateThreadStopped);
  });
});

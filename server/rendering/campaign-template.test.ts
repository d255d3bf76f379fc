import { describe, expect, it } from 'vitest';
import { compileCampaign, templateErrors } from './campaign-template.ts';

const timed = <T>(work: () => T): [T, number] => {
  const started = performance.now();
  const result = work();
  return [result, performance.now() - started];
};

describe('template checks', () => {
  it('refuse HTML nested too deep to derive a text part from, at once', () => {
    for (const unit of ['<div>', '<h1>', '<ol><li>']) {
      const [errors, ms] = timed(() => templateErrors({ content: unit.repeat(Math.floor(900_000 / unit.length)) }));
      expect(errors).toEqual([{ pointer: '/content', detail: expect.stringMatching(/more than 256 deep.*give text_content/) }]);
      expect(ms).toBeLessThan(1000);
    }
    const nested = `${'<div>'.repeat(200)}Hi{{ first_name }}${'</div>'.repeat(200)}`;
    expect(templateErrors({ content: nested })).toEqual([]);
    expect(templateErrors({ content: '<div>'.repeat(300), text_content: 'Hi' })).toEqual([]);
  });

  it('refuse more Liquid markup than the limit, at once', () => {
    for (const unit of ['{% if a %}{% endif %}', 'x{{a}}<p>{% if a %}y{% else %}z{% endif %}</p>']) {
      const [errors, ms] = timed(() => templateErrors({ content: unit.repeat(Math.floor(900_000 / unit.length)) }));
      expect(errors).toEqual([{ pointer: '/content', detail: 'more than 10,000 Liquid tags and outputs ({% %}, {{ }})' }]);
      expect(ms).toBeLessThan(1000);
    }
    expect(templateErrors({ content: '<p>{{ first_name }}</p>'.repeat(10_000) })).toEqual([]);
    expect(() => compileCampaign({ subject: '{{ a }}'.repeat(10_001), content: 'x', textContent: null, preheader: null })).toThrow(/more than 10,000/);
  });
});

import { describe, expect, it } from 'vitest';
import { compileBundle, MAX_PARTIAL_CHARS, MAX_PARTIALS, renderCompiled, TemplateError, type TemplateBundle } from './liquid.ts';

const bundle = (html: string, partials: TemplateBundle['partials'] = {}): TemplateBundle => ({ subject: 'Hi', html, text: 'text', partials });

function errorsOf(work: () => unknown): string[] {
  try {
    work();
  } catch (error) {
    if (error instanceof TemplateError) return error.errors.map((e) => e.detail);
    throw error;
  }
  throw new Error('no error');
}

describe('template bundles', () => {
  it('resolve partials from the bundle only, never from files', () => {
    for (const name of ['/etc/passwd', '../../package.json', 'package.json']) {
      expect(errorsOf(() => compileBundle(bundle(`{% render '${name}' %}`)))).toEqual([`no published template of this account is named "${name}"`]);
    }
    const compiled = compileBundle(bundle("{% render 'Footer' %}", { footer: { html: 'bye', text: null } }));
    expect(renderCompiled(compiled, {}).html).toBe('bye');
  });

  it(`refuse more than ${MAX_PARTIALS} partials, or more than ${MAX_PARTIAL_CHARS.toLocaleString('en')} characters of them`, () => {
    const many = Object.fromEntries(Array.from({ length: MAX_PARTIALS + 1 }, (_, i) => [`p${i}`, { html: 'x', text: 'x' }]));
    expect(errorsOf(() => compileBundle(bundle("{% render 'p0' %}", many)))).toEqual([`uses more than ${MAX_PARTIALS} partials and layouts`]);
    const big = { a: { html: 'x'.repeat(MAX_PARTIAL_CHARS / 2), text: 'y'.repeat(MAX_PARTIAL_CHARS / 2 + 1) } };
    expect(errorsOf(() => compileBundle(bundle("{% render 'a' %}", big)))).toEqual([`the partials and layouts it uses hold more than 4,000,000 characters`]);
  });

  it('refuse a cycle among partials before anything renders', () => {
    const partials = { a: { html: "{% render 'b' %}", text: 'a' }, b: { html: "{% if x %}{% render 'a' %}{% endif %}", text: 'b' } };
    expect(errorsOf(() => compileBundle(bundle("{% render 'a' %}", partials)))).toEqual(['"a" calls itself: a → b → a']);
  });
});

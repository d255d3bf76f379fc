import { convert } from 'html-to-text';
import { Liquid, type Template } from 'liquidjs';
import type { FieldError } from '../http/problem.ts';

/** HTML output escapes every value (a contact's name cannot inject markup); `| raw` opts out. */
const html = new Liquid({ strictFilters: true, outputEscape: 'escape', cache: false });
const plain = new Liquid({ strictFilters: true, cache: false });

export interface CompiledCampaign {
  subject: Template[];
  html: Template[];
  /** The text part: the author's, or derived from the HTML template once (Liquid tags survive as text). */
  text: Template[];
  preheader: Template[] | null;
  /** Whether the author placed the unsubscribe link; if not, a footer adds one. */
  hasUnsubscribeLink: boolean;
}

/** A template that does not parse, with where: `line 3, column 7: …`. */
function parseError(field: string, error: unknown): FieldError {
  const e = error as { message?: string; token?: { getPosition?: () => [number, number] } };
  const [line, column] = e.token?.getPosition?.() ?? [1, 1];
  const message = (e.message ?? 'invalid template').replace(/, line:\d+, col:\d+$/, '');
  return { pointer: `/${field}`, detail: `line ${line}, column ${column}: ${message}` };
}

/** Every template field that does not parse (the text derived from the HTML too); empty when all do. */
export function templateErrors(fields: { subject?: string; content?: string; text_content?: string | null; preheader?: string | null }): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, source] of Object.entries(fields)) {
    if (typeof source !== 'string') continue;
    try {
      (field === 'content' ? html : plain).parse(source);
    } catch (error) {
      errors.push(parseError(field, error));
    }
  }
  const htmlParses = !errors.some((e) => e.pointer === '/content');
  if (typeof fields.content === 'string' && fields.text_content == null && htmlParses) {
    try {
      plain.parse(htmlToText(fields.content));
    } catch (error) {
      errors.push({ pointer: '/content', detail: `the text part derived from it does not parse: ${parseError('content', error).detail}` });
    }
  }
  return errors;
}

export function compileCampaign(c: { subject: string; content: string; textContent: string | null; preheader: string | null }): CompiledCampaign {
  return {
    subject: plain.parse(c.subject),
    html: html.parse(c.content),
    text: plain.parse(c.textContent ?? htmlToText(c.content)),
    preheader: c.preheader === null ? null : plain.parse(c.preheader),
    hasUnsubscribeLink: /unsubscribe_url/.test(c.content),
  };
}

const KEEP_CASE = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

/**
 * Plain text from HTML: links kept as `text [url]`, images dropped, and headings left in their
 * case, because upper-casing would also change the Liquid tags inside them.
 */
export function htmlToText(html: string): string {
  return convert(html, {
    wordwrap: 78,
    selectors: [{ selector: 'img', format: 'skip' }, { selector: 'table', options: { uppercaseHeaderCells: false } }, ...KEEP_CASE],
  });
}

export function renderHtml(templates: Template[], scope: object): string {
  return html.renderSync(templates, scope) as string;
}

export function renderPlain(templates: Template[], scope: object): string {
  return plain.renderSync(templates, scope) as string;
}

import { convert } from 'html-to-text';
import { Liquid, type Template } from 'liquidjs';
import type { FieldError } from '../http/problem.ts';

const RENDER_LIMIT_MS = 200;
/** Liquid's unit: characters and items its tags and filters create (ranges, joins, appends). */
const RENDER_MEMORY_LIMIT = 10_000_000;

/**
 * No file system: Liquid would otherwise let `{% include 'data/jwt-secret' %}` put any file the
 * server can read into an email. The tags that load files are refused when a template is saved.
 * A render is bounded in time and allocation: `{% for i in (1..100000000) %}` fails the message
 * instead of holding a sending thread (and every campaign behind it) for minutes.
 */
function engine(options: { outputEscape?: 'escape' }): Liquid {
  const liquid = new Liquid({ ...options, strictFilters: true, cache: false, templates: {}, renderLimit: RENDER_LIMIT_MS, memoryLimit: RENDER_MEMORY_LIMIT });
  for (const tag of ['include', 'render', 'layout']) {
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`{% ${tag} %} is not available: a campaign cannot load other templates`);
      },
      render() {},
    });
  }
  return liquid;
}

/** HTML output escapes every value (a contact's name cannot inject markup); `| raw` opts out. */
const html = engine({ outputEscape: 'escape' });
const plain = engine({});

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

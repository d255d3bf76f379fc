import { Parser } from 'htmlparser2';
import { convert } from 'html-to-text';
import { Liquid, type Template } from 'liquidjs';
import type { FieldError } from '../contract/problem.ts';
import { compileBundle, renderWith, type TemplateBundle } from '../templates/liquid.ts';

export const RENDER_LIMIT_MS = 200;
/** Liquid's unit: characters and items its tags and filters create (ranges, joins, appends). */
export const RENDER_MEMORY_LIMIT = 10_000_000;

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
  /** Renders the parts above: with the shared engines, or a template's own that resolve its partials. */
  render: { html: (templates: Template[], scope: object) => string; plain: (templates: Template[], scope: object) => string };
}

const sharedRender: CompiledCampaign['render'] = { html: (t, scope) => renderHtml(t, scope), plain: (t, scope) => renderPlain(t, scope) };

/**
 * Liquid tags and outputs one template may hold. liquidjs takes its tokens off the front of an
 * array, which grows quadratic with their number: 80,000 tokens parsed in 0.4 s, 160,000 in 16 s.
 */
export const MAX_LIQUID_MARKUP = 10_000;

/** How many `{{` and `{%` the source holds, up to one past the limit. */
function liquidMarkup(source: string): number {
  let count = 0;
  for (let at = source.indexOf('{'); at >= 0 && count <= MAX_LIQUID_MARKUP; at = source.indexOf('{', at + 1)) {
    const next = source.charCodeAt(at + 1);
    if (next === 123 || next === 37) count++;
  }
  return count;
}

/** Parses within the limit on Liquid markup. */
export function parse(engine: Liquid, source: string): Template[] {
  if (liquidMarkup(source) > MAX_LIQUID_MARKUP) throw new Error(`more than ${MAX_LIQUID_MARKUP.toLocaleString('en')} Liquid tags and outputs ({% %}, {{ }})`);
  return engine.parse(source);
}

/** A template that does not parse, with where: `line 3, column 7: …`. */
export function parseError(field: string, error: unknown): FieldError {
  const e = error as { message?: string; token?: { getPosition?: () => [number, number] } };
  const message = (e.message ?? 'invalid template').replace(/, line:\d+, col:\d+$/, '');
  const position = e.token?.getPosition?.();
  return { pointer: `/${field}`, detail: position ? `line ${position[0]}, column ${position[1]}: ${message}` : message };
}

export interface TemplateFields {
  subject?: string;
  content?: string;
  text_content?: string | null;
  preheader?: string | null;
}

/** Every template field that does not parse (the text derived from the HTML too); empty when all do. */
export function templateErrors(fields: TemplateFields): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, source] of Object.entries(fields)) {
    if (typeof source !== 'string') continue;
    try {
      parse(field === 'content' ? html : plain, source);
    } catch (error) {
      errors.push(parseError(field, error));
    }
  }
  const htmlParses = !errors.some((e) => e.pointer === '/content');
  if (typeof fields.content === 'string' && fields.text_content == null && htmlParses) errors.push(...derivedTextErrors(fields.content));
  return errors;
}

function derivedTextErrors(content: string): FieldError[] {
  let text: string;
  try {
    text = htmlToText(content);
  } catch (error) {
    return [{ pointer: '/content', detail: (error as Error).message }];
  }
  try {
    parse(plain, text);
    return [];
  } catch (error) {
    return [{ pointer: '/content', detail: `the text part derived from it does not parse: ${parseError('content', error).detail}` }];
  }
}

export function compileCampaign(c: {
  subject: string;
  content: string;
  textContent: string | null;
  preheader: string | null;
  template?: TemplateBundle | null;
}): CompiledCampaign {
  if (c.template) {
    const compiled = compileBundle(c.template);
    const { html: htmlEngine, plain: plainEngine } = compiled.engines;
    return {
      subject: compiled.subject,
      html: compiled.html,
      text: compiled.text,
      preheader: c.preheader === null ? null : parse(plain, c.preheader),
      hasUnsubscribeLink: [c.template.html, ...Object.values(c.template.partials).map((p) => p.html)].some((h) => /unsubscribe_url/.test(h)),
      render: { html: (t, scope) => renderWith(htmlEngine, t, scope), plain: (t, scope) => renderWith(plainEngine, t, scope) },
    };
  }
  return {
    render: sharedRender,
    subject: parse(plain, c.subject),
    html: parse(html, c.content),
    text: parse(plain, c.textContent ?? htmlToText(c.content)),
    preheader: c.preheader === null ? null : parse(plain, c.preheader),
    hasUnsubscribeLink: /unsubscribe_url/.test(c.content),
  };
}

/**
 * Deeper HTML is not turned into text: html-to-text recurses per level and htmlparser2 costs time
 * in proportion to the depth for every tag (`<div>` × 200,000 took 15 s, then overflowed the stack).
 */
export const MAX_TEXT_DEPTH = 256;

const TOO_DEEP = new Error(`the HTML nests elements more than ${MAX_TEXT_DEPTH} deep, too deep to derive the text part from it: give text_content`);

/** Whether elements nest deeper than the limit, as htmlparser2 nests them (implied ends included); stops at the first too deep. */
function nestsTooDeep(html: string): boolean {
  let depth = 0;
  const parser = new Parser({
    onopentag() {
      if (++depth > MAX_TEXT_DEPTH) throw TOO_DEEP;
    },
    onclosetag() {
      depth--;
    },
  });
  try {
    parser.end(html);
    return false;
  } catch (error) {
    if (error === TOO_DEEP) return true;
    throw error;
  }
}

const KEEP_CASE = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false } }));

/**
 * Plain text from HTML: links kept as `text [url]`, images dropped, and headings left in their
 * case, because upper-casing would also change the Liquid tags inside them.
 */
export function htmlToText(html: string): string {
  if (nestsTooDeep(html)) throw TOO_DEEP;
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

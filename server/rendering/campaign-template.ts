import { Liquid, type Template } from 'liquidjs';
import type { FieldError } from '../contract/problem.ts';
import { compileBundle, renderWith, type TemplateBundle } from './liquid.ts';
import { htmlToText, parse, parseError, RENDER_LIMIT_MS, RENDER_MEMORY_LIMIT } from './liquid-parse.ts';

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

export function renderHtml(templates: Template[], scope: object): string {
  return html.renderSync(templates, scope) as string;
}

export function renderPlain(templates: Template[], scope: object): string {
  return plain.renderSync(templates, scope) as string;
}

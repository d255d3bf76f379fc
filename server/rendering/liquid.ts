import { LayoutTag, Liquid, RenderTag, toValueSync, type FS, type Template } from 'liquidjs';
import type { FieldError } from '../contract/problem.ts';
import { htmlToText, parse, RENDER_LIMIT_MS, RENDER_MEMORY_LIMIT } from './liquid-parse.ts';

/** Partials and layouts one template may use, directly or through others. */
export const MAX_PARTIALS = 50;
/** How deep partials and layouts may call one another (the template itself is level 0). */
export const MAX_PARTIAL_DEPTH = 8;
/** Characters of partial and layout sources (HTML and text) one template may pull in. */
export const MAX_PARTIAL_CHARS = 4_000_000;

/** A template error with where it is: the field, and the line and column in it (or in the partial named). */
export interface TemplateFieldError extends FieldError {
  line?: number;
  column?: number;
}

/** A template's own sources, as the author wrote them. */
export interface TemplateSources {
  subject: string;
  html: string;
  /** Derived from the HTML when null. */
  text: string | null;
}

/** A template with the partials and layouts it may call, by lower-cased name; a partial's text is derived from its HTML when null. */
export interface TemplateBundle extends TemplateSources {
  partials: Record<string, { html: string; text: string | null }>;
}

/** Frozen partial and layout sources: name → the HTML and the plain text (derived when the author gave none). */
export type FrozenPartials = Record<string, { html: string; text: string }>;

export interface CompiledTemplate {
  subject: Template[];
  html: Template[];
  text: Template[];
  /** The engines that render the parts above: each resolves partials from the bundle only. */
  engines: { html: Liquid; plain: Liquid };
  /** Every partial's sources, texts derived: what a published version keeps. */
  frozen: FrozenPartials;
}

export interface RenderedTemplate {
  subject: string;
  html: string;
  text: string;
}

/** Thrown with every error found, each with its position. */
export class TemplateError extends Error {
  readonly errors: TemplateFieldError[];
  constructor(errors: TemplateFieldError[]) {
    super(errors.map((e) => `${e.pointer}: ${e.detail}`).join('; '));
    this.errors = errors;
  }
}

const key = (name: string) => name.toLowerCase();

/**
 * The only file system the templates' engines have: the account's own templates handed over by
 * name, never a file on disk. A name not there is not found, whoever's template it is.
 */
export function bundleFs(files: Record<string, string>): FS {
  const read = (name: string) => {
    const source = Object.hasOwn(files, key(name)) ? files[key(name)] : undefined;
    if (source === undefined) throw new Error(`no template of this account is named "${name}"`);
    return source;
  };
  return {
    exists: (name) => Promise.resolve(Object.hasOwn(files, key(name))),
    existsSync: (name) => Object.hasOwn(files, key(name)),
    readFile: (name) => Promise.resolve().then(() => read(name)),
    readFileSync: read,
    resolve: (_dir, name) => name,
    contains: () => Promise.resolve(true),
    containsSync: () => true,
  };
}

/**
 * An engine whose `{% render %}` and `{% layout %}` resolve from `files`; `{% include %}`, which
 * leaks its caller's variables, is refused. Bounded as campaigns' are: 200 ms and 10 M units of
 * allocation per render, partials included (they share their caller's limits).
 */
function engine(files: Record<string, string>, escape: boolean): Liquid {
  const liquid = new Liquid({
    ...(escape ? { outputEscape: 'escape' as const } : {}),
    strictFilters: true,
    cache: true,
    fs: bundleFs(files),
    root: ['.'],
    partials: ['.'],
    layouts: ['.'],
    relativeReference: false,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: RENDER_MEMORY_LIMIT,
  });
  liquid.registerTag('include', {
    parse() {
      throw new Error("{% include %} is not available: use {% render 'name' %}");
    },
    render() {},
  });
  return liquid;
}

/** Parse-only engines (names are checked, not resolved), made on first use: the campaign template module imports this one. */
let checkers: { html: Liquid; plain: Liquid } | null = null;
const checking = () => (checkers ??= { html: engine({}, true), plain: engine({}, false) });

interface Position {
  line: number;
  column: number;
}

function positionOf(error: unknown): (Position & { file?: string }) | null {
  const token = (error as { token?: { getPosition?: () => [number, number]; file?: string } }).token;
  const position = token?.getPosition?.();
  return position ? { line: position[0], column: position[1], file: token?.file } : null;
}

/** A Liquid error as a field error: the message without liquidjs's own `, line:…, col:…` suffix. */
function fieldError(pointer: string, error: unknown, partial?: string): TemplateFieldError {
  const message = ((error as Error).message ?? 'invalid template').replace(/, file:[^,]*, line:\d+, col:\d+$|, line:\d+, col:\d+$/, '');
  const at = positionOf(error);
  const file = at?.file ?? partial;
  const where = file ? `in "${file}", ` : '';
  return at
    ? { pointer, detail: `${where}line ${at.line}, column ${at.column}: ${message}`, line: at.line, column: at.column }
    : { pointer, detail: `${where}${message}` };
}

/** The names a parsed template calls with `{% render %}` and `{% layout %}`; a name that is not a quoted literal is an error. */
function calledNames(templates: Template[], pointer: string, errors: TemplateFieldError[], partial?: string): Set<string> {
  const names = new Set<string>();
  const walk = (list: Template[]) => {
    for (const template of list) {
      if (template instanceof RenderTag || template instanceof LayoutTag) {
        const name = template.partialScope()?.name;
        if (typeof name === 'string') names.add(key(name));
        else
          errors.push(
            fieldError(
              pointer,
              Object.assign(new Error("a partial or layout is named by a quoted name: {% render 'footer' %}"), { token: template.token }),
              partial,
            ),
          );
      }
      if (template.children) walk(toValueSync(template.children(false, true)));
    }
  };
  walk(templates);
  return names;
}

function parsed(liquid: Liquid, source: string, pointer: string, errors: TemplateFieldError[], partial?: string): Template[] | null {
  try {
    return parse(liquid, source);
  } catch (error) {
    errors.push(fieldError(pointer, error, partial));
    return null;
  }
}

function textOf(html: string, text: string | null, pointer: string, errors: TemplateFieldError[], partial?: string): string | null {
  if (text !== null) return text;
  try {
    return htmlToText(html);
  } catch (error) {
    errors.push({ pointer, detail: `${partial ? `in "${partial}", ` : ''}${(error as Error).message}` });
    return null;
  }
}

/** Whether a draft parses, and the partials and layouts it calls (lower-cased names). */
export function checkTemplate(sources: TemplateSources): { errors: TemplateFieldError[]; partialNames: string[] } {
  const errors: TemplateFieldError[] = [];
  const names = new Set<string>();
  const add = (found: Set<string>) => found.forEach((n) => names.add(n));
  const { html: checkHtml, plain: checkPlain } = checking();
  const subject = parsed(checkPlain, sources.subject, '/subject', errors);
  if (subject) add(calledNames(subject, '/subject', errors));
  const html = parsed(checkHtml, sources.html, '/html', errors);
  if (html) add(calledNames(html, '/html', errors));
  // The text derived from HTML that does not parse would only repeat its errors.
  if (!html && sources.text === null) return { errors, partialNames: [...names].sort() };
  const text = textOf(sources.html, sources.text, sources.text === null ? '/html' : '/text', errors);
  if (text !== null) {
    const pointer = sources.text === null ? '/html' : '/text';
    const templates = parsed(checkPlain, text, pointer, errors);
    if (templates) add(calledNames(templates, pointer, errors));
  }
  return { errors, partialNames: [...names].sort() };
}

/**
 * Parses a bundle and checks that its partials call no name it lacks, never call themselves
 * (directly or not) and nest no deeper than the limit: every render stays within the bundle, so
 * its depth is known before anything renders.
 */
export function compileBundle(bundle: TemplateBundle): CompiledTemplate {
  const errors: TemplateFieldError[] = [];
  const partialNames = Object.keys(bundle.partials);
  if (partialNames.length > MAX_PARTIALS) throw new TemplateError([{ pointer: '/html', detail: `uses more than ${MAX_PARTIALS} partials and layouts` }]);
  const { html: checkHtml, plain: checkPlain } = checking();
  const frozen: FrozenPartials = {};
  const calls = new Map<string, Set<string>>();
  let chars = 0;
  for (const name of partialNames) {
    const { html, text } = bundle.partials[name];
    const derived = textOf(html, text, '/html', errors, name);
    if (derived === null) continue;
    chars += html.length + derived.length;
    frozen[name] = { html, text: derived };
    const called = new Set<string>();
    for (const [liquid, source] of [
      [checkHtml, html],
      [checkPlain, derived],
    ] as const) {
      const templates = parsed(liquid, source, '/html', errors, name);
      if (templates) calledNames(templates, '/html', errors, name).forEach((n) => called.add(n));
    }
    calls.set(name, called);
  }
  if (chars > MAX_PARTIAL_CHARS)
    errors.push({ pointer: '/html', detail: `the partials and layouts it uses hold more than ${MAX_PARTIAL_CHARS.toLocaleString('en')} characters` });

  const html = engine(Object.fromEntries(Object.entries(frozen).map(([n, f]) => [n, f.html])), true);
  const plain = engine(Object.fromEntries(Object.entries(frozen).map(([n, f]) => [n, f.text])), false);
  const text = textOf(bundle.html, bundle.text, bundle.text === null ? '/html' : '/text', errors);
  const parts = {
    subject: parsed(plain, bundle.subject, '/subject', errors),
    html: parsed(html, bundle.html, '/html', errors),
    text: text === null ? null : parsed(plain, text, bundle.text === null ? '/html' : '/text', errors),
  };
  const top = new Set<string>();
  for (const [field, templates] of Object.entries(parts)) if (templates) calledNames(templates, `/${field}`, errors).forEach((n) => top.add(n));
  if (!errors.length) errors.push(...graphErrors(top, calls));
  if (errors.length || !parts.subject || !parts.html || !parts.text) throw new TemplateError(errors);
  return { subject: parts.subject, html: parts.html, text: parts.text, engines: { html, plain }, frozen };
}

/** Names called that the bundle lacks, cycles, and chains deeper than the limit. */
function graphErrors(top: Set<string>, calls: Map<string, Set<string>>): TemplateFieldError[] {
  const errors: TemplateFieldError[] = [];
  const depthOf = new Map<string, number>();
  const visit = (name: string, path: string[]): number => {
    if (path.includes(name)) throw new TemplateError([{ pointer: '/html', detail: `"${name}" calls itself: ${[...path, name].join(' → ')}` }]);
    const known = depthOf.get(name);
    if (known !== undefined) return known;
    const called = calls.get(name);
    if (!called)
      throw new TemplateError([
        { pointer: '/html', detail: `no published template of this account is named "${name}"${path.length ? ` (called by "${path.at(-1)}")` : ''}` },
      ]);
    let depth = 1;
    for (const next of called) depth = Math.max(depth, 1 + visit(next, [...path, name]));
    if (depth > MAX_PARTIAL_DEPTH) throw new TemplateError([{ pointer: '/html', detail: `partials and layouts nest more than ${MAX_PARTIAL_DEPTH} deep` }]);
    depthOf.set(name, depth);
    return depth;
  };
  for (const name of top) {
    try {
      visit(name, []);
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      errors.push(...error.errors);
    }
  }
  return errors;
}

/**
 * Renders with the variables also as globals: `{% render %}` gives a partial a scope of its own,
 * and a footer partial still needs `unsubscribe_url` and the contact's name.
 */
export function renderWith(liquid: Liquid, templates: Template[], scope: object): string {
  return liquid.renderSync(templates, scope, { globals: scope }) as string;
}

/** Renders a compiled template; a render error (a limit, a missing variable filter) says where. */
export function renderCompiled(compiled: CompiledTemplate, scope: object): RenderedTemplate {
  const errors: TemplateFieldError[] = [];
  const run = (field: string, liquid: Liquid, templates: Template[]) => {
    try {
      return renderWith(liquid, templates, scope);
    } catch (error) {
      errors.push(fieldError(`/${field}`, error));
      return '';
    }
  };
  const subject = run('subject', compiled.engines.plain, compiled.subject)
    .replace(/[\r\n]+/g, ' ')
    .trim();
  const html = run('html', compiled.engines.html, compiled.html);
  const text = run('text', compiled.engines.plain, compiled.text);
  if (errors.length) throw new TemplateError(errors);
  return { subject, html, text };
}

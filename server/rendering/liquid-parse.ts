import { Parser } from 'htmlparser2';
import { convert } from 'html-to-text';
import type { Liquid, Template } from 'liquidjs';
import type { FieldError } from '../contract/problem.ts';

/** How long one render may run before it fails the message. */
export const RENDER_LIMIT_MS = 200;
/** Liquid's unit: characters and items its tags and filters create (ranges, joins, appends). */
export const RENDER_MEMORY_LIMIT = 10_000_000;

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

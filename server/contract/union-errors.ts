import type { FieldError } from './problem.ts';

/** A validator's complaint: where, what, and the schema keyword that failed (`type`, `format`, `anyOf` …). */
export interface KeywordError extends FieldError {
  keyword: string;
}

const within = (pointer: string, parent: string) => pointer === parent || pointer.startsWith(parent === '/' ? '/' : `${parent}/`);

/**
 * One problem per field. A value checked against a union (an address or `{email, name}`) is
 * reported by every branch: the branch it failed as a whole (`anyOf`), the branches whose type it
 * does not have (`must be object` beside a bad address), and the one that fits. Only that one
 * says what is wrong; the first complaint per pointer stands for the rest.
 */
export function leanFieldErrors(list: KeywordError[]): FieldError[] {
  const kept = list.filter((e) => {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') return !list.some((o) => o !== e && within(o.pointer, e.pointer));
    // A type mismatch beside complaints about the value's own fields: the value has the other branch's type.
    if (e.keyword === 'type') return !list.some((o) => o.pointer !== e.pointer && within(o.pointer, e.pointer));
    return true;
  });
  const errors = new Map<string, string>();
  for (const e of kept) if (!errors.has(e.pointer)) errors.set(e.pointer, e.detail);
  return [...errors].map(([pointer, detail]) => ({ pointer, detail }));
}

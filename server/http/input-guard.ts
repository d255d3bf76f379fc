import type { NextFunction, Request, Response } from 'express';
import { validationFailed, type FieldError } from '../contract/problem.ts';

/** Far deeper than any request of the contract; deeper JSON would overflow whatever recurses over it. */
export const MAX_JSON_DEPTH = 32;

const MAX_ERRORS = 20;
const NUL = '\u0000';
const NUL_DETAIL = 'must not contain the NUL character (U+0000) or an unpaired surrogate (\\uD800–\\uDFFF alone)';

/** Text PostgreSQL can store: no U+0000, and no lone surrogate, which has no UTF-8 form (JSON can write one as `\\ud800`). */
const storable = (text: string) => !text.includes(NUL) && text.isWellFormed();

const pointerTo = (parent: string, key: string | number) => `${parent}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Walks a parsed JSON body without recursion: its depth is the client's to choose. */
function jsonBodyErrors(body: unknown, errors: FieldError[]): void {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value: body, pointer: '', depth: 0 }];
  while (stack.length && errors.length < MAX_ERRORS) {
    const { value, pointer, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) errors.push({ pointer: pointer || '/', detail: NUL_DETAIL });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) {
      errors.push({ pointer: pointer || '/', detail: `is nested more than ${MAX_JSON_DEPTH} levels deep` });
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const childPointer = pointerTo(pointer, key);
      if (!storable(key)) errors.push({ pointer: childPointer, detail: `has a name that ${NUL_DETAIL}` });
      stack.push({ value: child, pointer: childPointer, depth: depth + 1 });
    }
  }
}

/**
 * Refuses, for every operation and before anything reads the request, what no handler can use:
 * the NUL character and unpaired surrogates in path parameters, query values and JSON strings or names (PostgreSQL
 * stores no U+0000 in text or jsonb), and JSON nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function rejectUnusableInput(req: Request, _res: Response, next: NextFunction): void {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(req.params ?? {})) {
    if (typeof value === 'string' && !storable(value)) errors.push({ pointer: `path.${name}`, detail: NUL_DETAIL });
  }
  for (const [name, value] of Object.entries(req.query ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    if (!storable(name) || values.some((v) => typeof v === 'string' && !storable(v))) errors.push({ pointer: `query.${name}`, detail: NUL_DETAIL });
  }
  if (req.body !== undefined && typeof req.body === 'object') jsonBodyErrors(req.body, errors);
  if (errors.length) throw validationFailed(errors.slice(0, MAX_ERRORS));
  next();
}

import { EVENT_TYPES } from './types.ts';

/** `*`, an event type, or a category with a star (`email.*`). */
export function isEventPattern(pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return EVENT_TYPES.some((t) => t.startsWith(pattern.slice(0, -1)));
  return (EVENT_TYPES as readonly string[]).includes(pattern);
}

export function matchesAny(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/** The same rule in SQL, for `patterns` a text[] column and `type` a text expression. */
export const MATCHES_SQL = (patterns: string, type: string) =>
  `exists (select 1 from unnest(${patterns}) p where p = '*' or p = ${type} or (p like '%.*' and ${type} like left(p, -1) || '%'))`;

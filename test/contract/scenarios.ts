/**
 * The shared contract scenarios (scenarios/*.json), and the rules every language's runner
 * implements the same way: `{{name}}` interpolation, dotted captures, subset matching, types.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface Step {
  op?: string;
  auth?: { bearer?: string; api_key?: string } | null;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  status?: number;
  expect?: unknown;
  types?: Record<string, string>;
  capture?: Record<string, string>;
  problem?: Record<string, unknown>;
  /** Repeat the call until the response matches this subset (polling a job). */
  until?: unknown;
  /** Call up to this many times until the status is the expected one (a rate-limit window may roll over). */
  attempts?: number;
  /** The response is text that contains this. */
  contains?: string;

  /**
   * A call through the SDK's own client rather than the generated operation: `resource.method`
   * in snake_case (`contacts.create`, `contacts.import_csv`), each runner in its language's
   * spelling. `args` are the call's arguments by name (`id` is the path parameter; an import's
   * `csv` is CSV text, its `path` a file's path); a value `{ "$date": "…" }` is passed as the
   * language's native date-time. `wait` (`contact_imports.wait`, `contact_exports.wait`,
   * `campaigns.wait`) takes `timeout` and `interval` in seconds (the Node runner gives them in
   * milliseconds, as that SDK takes them).
   */
  client?: string;
  args?: Record<string, unknown>;
  /** Sent as the call's `Idempotency-Key`. */
  idempotency_key?: string;
  /** A list call: iterate every item across pages and compare this field of each to `expect`. */
  collect?: string;
  /** An import: wait for it to finish and compare the finished import to `expect`. */
  wait?: boolean;
  /** The call must throw the SDK's error of this class, with these properties. */
  error?: { class: string; status?: number; code?: string; existing_id?: string; pointer?: string };
  /**
   * Sign `event` with the SDK's webhook signer (altered after signing when `tamper`), then verify
   * it with headers in capitalised form and the body as bytes: `expect` the parsed event, or `error`.
   */
  webhook?: { secret: string; event: Record<string, unknown>; tamper?: boolean };
}

export interface Scenario {
  file: string;
  name: string;
  steps: Step[];
}

const DIR = new URL('./scenarios/', import.meta.url);

export function loadScenarios(): Scenario[] {
  return readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, DIR), 'utf8')) }));
}

/** Replaces `{{name}}` (no spaces: Liquid's `{{ name }}` stays as it is) with captured values. */
export function interpolate(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(value);
    if (whole) return vars[whole[1]];
    return value.replace(/\{\{(\w+)\}\}/g, (_, name) => String(vars[name]));
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, vars));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, vars)]));
  return value;
}

export function dig(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, key) => (v == null ? undefined : (v as Record<string, unknown>)[key]), value);
}

/** Objects: every expected key matches; arrays: same length, element by element; else equal. */
export function subsetMismatch(actual: unknown, expected: unknown, at = '$'): string | null {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return `${at}: expected an array of ${expected.length}, got ${JSON.stringify(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const problem = subsetMismatch(actual[i], expected[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return null;
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object') return `${at}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const problem = subsetMismatch((actual as Record<string, unknown>)[key], value, `${at}.${key}`);
      if (problem) return problem;
    }
    return null;
  }
  return actual === expected ? null : `${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

/** `integer` is also a `number`. */
export const typeMatches = (value: unknown, wanted: string) => typeOf(value) === wanted || (wanted === 'number' && typeOf(value) === 'integer');

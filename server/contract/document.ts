import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const SPEC_PATH = fileURLToPath(new URL('../../generated/openapi.yaml', import.meta.url));
export const API_BASE = '/api/v1';

/** A JSON Schema node of the document, walked and rewritten for the validator. */
type Schema = { [key: string]: unknown };

interface Parameter {
  in?: string;
  allowReserved?: boolean;
}

/** A schema of the document, as far as the server reads one (the error catalogue's enum). */
export interface SchemaObject {
  $ref?: string;
  enum?: string[];
  properties?: Record<string, SchemaObject>;
  'x-enum-descriptions'?: string[];
}

interface Operation {
  operationId: string;
  security?: Record<string, string[]>[];
  requestBody?: { content?: Record<string, unknown> };
  parameters?: Parameter[];
  responses?: Record<string, { content?: Record<string, { schema?: SchemaObject }> }>;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

type PathItem = { [M in Method]?: Operation } & { parameters?: Parameter[] };

/** The parts of the OpenAPI document the server reads; the rest passes through untouched. */
export interface OpenApiDocument {
  paths: Record<string, PathItem>;
  components?: { parameters?: Record<string, Parameter>; schemas?: Record<string, SchemaObject> };
  [key: string]: unknown;
}

export interface ContractOperation {
  operationId: string;
  method: Method;
  /** The OpenAPI path, e.g. `/campaigns/{id}`. */
  path: string;
  /** The same as an Express route, e.g. `/campaigns/:id`. */
  expressPath: string;
  /** False for operations declared without authentication (login, register, refresh). */
  authenticated: boolean;
  /** Whether the operation declares a request body; others never read one. */
  takesBody: boolean;
  /** Whether it takes a form-encoded body (public forms posted by browsers). */
  takesForm: boolean;
}

export function loadContract(): OpenApiDocument {
  return YAML.parse(readFileSync(SPEC_PATH, 'utf8')) as OpenApiDocument;
}

export function listOperations(doc: OpenApiDocument): ContractOperation[] {
  const out: ContractOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const security = op.security;
      out.push({
        operationId: op.operationId,
        method,
        path,
        expressPath: path.replace(/\{(\w+)\}/g, ':$1'),
        authenticated: !security || !security.every((s) => Object.keys(s).length === 0),
        takesBody: Boolean(op.requestBody),
        takesForm: Boolean(op.requestBody?.content?.['application/x-www-form-urlencoded']),
      });
    }
  }
  return out;
}

/**
 * OpenAPI 3.0 writes a nullable reference as `{ nullable: true, allOf: [{ $ref }] }`; ajv
 * ignores `nullable` beside `allOf` and refuses the null. The validator's copy says it as an
 * `anyOf` that ajv understands.
 */
function nullableReferencesAsAnyOf(node: unknown): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(nullableReferencesAsAnyOf);
  const schema = node as Schema;
  if (schema.nullable === true && Array.isArray(schema.allOf) && schema.allOf.length === 1) {
    // The null branch first: ajv coerces types inside anyOf and would turn null into "" before trying it.
    schema.anyOf = [{ enum: [null] }, schema.allOf[0]];
    delete schema.allOf;
    delete schema.nullable;
    delete schema.type;
  }
  for (const value of Object.values(schema)) nullableReferencesAsAnyOf(value);
}

/**
 * RFC 3986 allows `@`, `:`, `/` and `?` in a query, and curl users type them unencoded
 * (`?email=ada@example.com`, `?since=2026-01-01T00:00:00Z`); the validator refuses them unless a
 * parameter allows reserved characters. The query string is split on `&` and `=` before any of
 * this, so nothing is lost by allowing them.
 */
function allowReservedCharactersInQueries(doc: OpenApiDocument): void {
  const operationParameters = Object.values(doc.paths).flatMap((item) => [
    ...(item.parameters ?? []),
    ...METHODS.flatMap((method) => item[method]?.parameters ?? []),
  ]);
  for (const parameter of [...Object.values(doc.components?.parameters ?? {}), ...operationParameters]) {
    if (parameter.in === 'query') parameter.allowReserved = true;
  }
}

/**
 * Examples are for readers of the reference. The validator's ajv walks every key of a schema and,
 * in draft-04 mode, takes an `id` inside an example (`{"id": "ct_…"}`) for a schema id: two
 * examples of one resource then "resolve to more than one schema". Its copy goes without them.
 */
function withoutExamples(node: unknown, key = ''): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach((item) => withoutExamples(item));
  const object = node as Schema;
  // Under `properties`, `example` would be the name of a field, not an example.
  if (key !== 'properties') {
    delete object.example;
    delete object.examples;
  }
  for (const [name, value] of Object.entries(object)) withoutExamples(value, name);
}

/**
 * The validator builds each operation's checks on its first request from a copy of the whole
 * document, which it walks key by key, references resolved: the responses are most of it.
 */
function withoutResponses(doc: OpenApiDocument): void {
  for (const item of Object.values(doc.paths)) {
    for (const method of METHODS) if (item[method]) item[method].responses = {};
  }
}

/** The document as the validator gets it: nullable references fixed, reserved characters allowed in queries, no examples. */
export function validatorDocument(doc: OpenApiDocument, options: { responses?: boolean } = {}): OpenApiDocument {
  const copy = structuredClone(doc);
  if (options.responses === false) withoutResponses(copy);
  withoutExamples(copy);
  nullableReferencesAsAnyOf(copy);
  allowReservedCharactersInQueries(copy);
  return copy;
}

/**
 * Compiles OpenAPI path templates into matchers, to answer 404 and 405 before anything else. A
 * path that fits several templates belongs to the most literal one (`/contacts/import`, not
 * `/contacts/{id}`), as OpenAPI has it.
 */
export function routeTable(operations: ContractOperation[]) {
  const byPath = new Map<string, { pattern: RegExp; parameters: number; methods: string[] }>();
  for (const op of operations) {
    let entry = byPath.get(op.path);
    if (!entry) {
      const pattern = new RegExp('^' + op.path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+') + '/?$');
      entry = { pattern, parameters: (op.path.match(/\{/g) ?? []).length, methods: [] };
      byPath.set(op.path, entry);
    }
    entry.methods.push(op.method.toUpperCase());
  }
  const entries = [...byPath.values()];
  /** The methods allowed on a path, or null when no operation has that path. */
  return (path: string): string[] | null => {
    const matches = entries.filter((e) => e.pattern.test(path));
    if (!matches.length) return null;
    const fewest = Math.min(...matches.map((e) => e.parameters));
    return [...new Set(matches.filter((e) => e.parameters === fewest).flatMap((e) => e.methods))];
  };
}

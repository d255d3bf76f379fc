/**
 * What the reference (`/docs`, built from generated/openapi.yaml) must show for each operation, and
 * the schema each example of the contract claims to fit. Read by test/contract/reference.test.ts.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { loadContract, validatorDocument, type OpenApiDocument } from '../../server/contract/document.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface MediaType {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
  'x-codeSamples'?: { lang?: string; label?: string; source?: string }[];
}

export interface ReferenceOperation {
  method: string;
  path: string;
  operation: Operation;
}

/** The document the reference (`/docs`) shows; what is joined to the contract to serve it belongs here too. */
export function referenceDocument(): OpenApiDocument {
  return loadContract();
}

export function referenceOperations(doc: OpenApiDocument): ReferenceOperation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as Record<string, Operation | undefined>)[method];
      return operation ? [{ method, path, operation }] : [];
    }),
  );
}

/**
 * The `lang` of each `x-codeSamples` entry every operation must carry (curl, Python, Node.js, PHP,
 * Ruby). Empty until the code samples exist; filling it in makes `missingReferenceParts` demand them.
 */
export const REQUIRED_CODE_SAMPLE_LANGS: readonly string[] = [];

const hasExample = (media: MediaType) => media.example !== undefined || Object.keys(media.examples ?? {}).length > 0;

/** The parts of an operation's reference still missing, in words (empty when complete). */
export function missingReferenceParts({ operation }: ReferenceOperation): string[] {
  const missing: string[] = [];
  if (!operation.summary?.trim()) missing.push('summary');
  if (!operation.description?.trim()) missing.push('description');
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    // TypeSpec cannot write a value of a multipart part (`HttpPart<File>`); the upload's fields are documented instead.
    if (type !== 'multipart/form-data' && !hasExample(media)) missing.push(`request example (${type})`);
  }
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    if (!status.startsWith('2')) continue;
    const contents = Object.entries(response.content ?? {});
    if (contents.length && !contents.some(([, media]) => hasExample(media))) missing.push(`${status} response example`);
  }
  const langs = new Set((operation['x-codeSamples'] ?? []).filter((s) => s.source?.trim()).map((s) => s.lang));
  for (const lang of REQUIRED_CODE_SAMPLE_LANGS) if (!langs.has(lang)) missing.push(`${lang} code sample`);
  return missing;
}

const hasErrorExample = ({ operation }: ReferenceOperation) =>
  Object.entries(operation.responses ?? {}).some(([status, response]) => /^[45]/.test(status) && Object.values(response.content ?? {}).some(hasExample));

/** Operation families (tags) of which no operation shows an error response. */
export function familiesWithoutErrorExample(operations: ReferenceOperation[]): string[] {
  const families = new Map<string, boolean>();
  for (const op of operations) {
    for (const tag of op.operation.tags ?? ['(untagged)']) families.set(tag, (families.get(tag) ?? false) || hasErrorExample(op));
  }
  return [...families].filter(([, shown]) => !shown).map(([tag]) => tag);
}

export interface ExampleCase {
  /** Where the example sits, e.g. `POST /contacts 201 application/json "A new contact"`. */
  name: string;
  value: unknown;
  /** A JSON pointer into the document, to the schema the example claims to fit. */
  schemaPointer: string;
}

const escapePointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

function mediaExamples(name: string, pointer: string, media: MediaType): ExampleCase[] {
  if (!media.schema) return [];
  const schemaPointer = `${pointer}/schema`;
  const cases: ExampleCase[] = [];
  if (media.example !== undefined) cases.push({ name, value: media.example, schemaPointer });
  for (const [title, example] of Object.entries(media.examples ?? {})) {
    cases.push({ name: `${name} "${title}"`, value: example.value, schemaPointer });
  }
  return cases;
}

/** Every request, response and schema example of the contract, with the schema it must fit. */
export function contractExamples(doc: OpenApiDocument): ExampleCase[] {
  const schemas = Object.entries((doc.components?.schemas ?? {}) as Record<string, { example?: unknown }>).flatMap(([name, schema]) =>
    schema.example === undefined ? [] : [{ name: `schema ${name}`, value: schema.example, schemaPointer: `#/components/schemas/${escapePointer(name)}` }],
  );
  const operations = referenceOperations(doc).flatMap(({ method, path, operation }) => {
    const base = `#/paths/${escapePointer(path)}/${method}`;
    const label = `${method.toUpperCase()} ${path}`;
    const requests = Object.entries(operation.requestBody?.content ?? {}).flatMap(([type, media]) =>
      mediaExamples(`${label} request ${type}`, `${base}/requestBody/content/${escapePointer(type)}`, media),
    );
    const responses = Object.entries(operation.responses ?? {}).flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).flatMap(([type, media]) =>
        mediaExamples(`${label} ${status} ${type}`, `${base}/responses/${status}/content/${escapePointer(type)}`, media),
      ),
    );
    return [...requests, ...responses];
  });
  return [...schemas, ...operations];
}

/**
 * Validators of the contract's schemas, by JSON pointer, from ajv (the validator the server's
 * express-openapi-validator runs) over the document as the server validates with it. Strict: an
 * example may carry no property its schema does not declare where the schema is closed.
 */
export function schemaValidators(doc: OpenApiDocument): (schemaPointer: string) => ValidateFunction {
  // `discriminator` is left to `oneOf`: ajv does not take its `mapping`, and each event's `type` tells the branches apart anyway.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  ajvFormats.default(ajv);
  // OpenAPI's own formats: file bodies, and the numeric ones ajv-formats does not know as such.
  ajv.addFormat('binary', true);
  ajv.addSchema(validatorDocument(doc), 'openapi');
  return (schemaPointer) => ajv.compile({ $ref: `openapi${schemaPointer}` });
}

/** A schema node as far as the description check walks it. */
interface SchemaNode {
  $ref?: string;
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  additionalProperties?: SchemaNode | boolean;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

interface ParameterNode {
  $ref?: string;
  name?: string;
  in?: string;
  description?: string;
  schema?: SchemaNode;
}

export interface DescribedPart {
  /** Where it sits, e.g. `ContactExport.filters.status` or `GET /emails query status`. */
  where: string;
  /** A property's name (`status`), or a parameter's location and name (`query status`). */
  name: string;
  described: boolean;
}

const isDescribed = (node: { description?: string }) => Boolean(node.description?.trim());

/** Every property declared at `node` or inside its inline schemas (named schemas are walked on their own). */
function schemaProperties(node: SchemaNode | undefined, where: string): DescribedPart[] {
  if (!node || node.$ref) return [];
  const own = Object.entries(node.properties ?? {}).flatMap(([name, property]) => [
    { where: `${where}.${name}`, name, described: isDescribed(property) },
    ...schemaProperties(property, `${where}.${name}`),
  ]);
  const additional = typeof node.additionalProperties === 'object' ? schemaProperties(node.additionalProperties, `${where}.*`) : [];
  const composed = [...(node.allOf ?? []), ...(node.anyOf ?? []), ...(node.oneOf ?? [])].flatMap((branch) => schemaProperties(branch, where));
  return [...own, ...schemaProperties(node.items, `${where}[]`), ...additional, ...composed];
}

/**
 * Every property the reference shows: those of the named schemas, of the inline objects inside them
 * and of the inline schemas of operations' request bodies and responses.
 */
export function documentProperties(doc: OpenApiDocument): DescribedPart[] {
  const named = Object.entries((doc.components?.schemas ?? {}) as Record<string, SchemaNode>).flatMap(([name, schema]) => schemaProperties(schema, name));
  const inline = referenceOperations(doc).flatMap(({ method, path, operation }) => {
    const label = `${method.toUpperCase()} ${path}`;
    const { requestBody, responses } = operation;
    const bodies = Object.entries(requestBody?.content ?? {}).flatMap(([type, media]) =>
      schemaProperties(media.schema as SchemaNode, `${label} request ${type}`),
    );
    const answers = Object.entries(responses ?? {}).flatMap(([status, response]) =>
      Object.entries(response.content ?? {}).flatMap(([type, media]) => schemaProperties(media.schema as SchemaNode, `${label} ${status} ${type}`)),
    );
    return [...bodies, ...answers];
  });
  return [...named, ...inline];
}

/** Every parameter (path, query, header, cookie) of every operation, shared ones resolved. */
export function documentParameters(doc: OpenApiDocument): DescribedPart[] {
  const shared = (doc.components?.parameters ?? {}) as Record<string, ParameterNode>;
  // A reference that resolves to nothing stays as it is, and shows up as undescribed.
  const resolve = (p: ParameterNode) => (p.$ref ? (shared[p.$ref.replace('#/components/parameters/', '')] ?? p) : p);
  return Object.entries(doc.paths).flatMap(([path, item]) => {
    const common = ((item as { parameters?: ParameterNode[] }).parameters ?? []).map(resolve);
    return METHODS.flatMap((method) => {
      const operation = (item as Record<string, { parameters?: ParameterNode[] } | undefined>)[method];
      if (!operation) return [];
      return [...common, ...(operation.parameters ?? []).map(resolve)].map((parameter) => ({
        where: `${method.toUpperCase()} ${path} ${parameter.in} ${parameter.name ?? parameter.$ref}`,
        name: `${parameter.in} ${parameter.name}`,
        described: isDescribed(parameter),
      }));
    });
  });
}

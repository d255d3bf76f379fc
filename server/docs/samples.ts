/**
 * The reference's code samples (`x-codeSamples`): one entry per operation in docs/samples.yaml,
 * rendered as curl, Python, Node.js, PHP and Ruby against each SDK's own surface. Rendered
 * rather than written five times, so that a sample says the same in every language and follows
 * the SDKs' naming rules (`Webhooks_rotateSecret` is `webhooks.rotate_secret` in Python and
 * Ruby, `webhooks.rotateSecret` in Node.js and PHP).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { API_BASE, listOperations, type Method, type OpenApiDocument } from '../contract/document.ts';

export const SAMPLES_PATH = fileURLToPath(new URL('../../docs/samples.yaml', import.meta.url));

type Value = string | number | boolean | null | Value[] | { [key: string]: Value };

export type Language = 'curl' | 'python' | 'node' | 'php' | 'ruby';

/** The five languages, in the order the reference shows them; `lang` names the highlighting. */
export const LANGUAGES: readonly { key: Language; lang: string; label: string }[] = [
  { key: 'curl', lang: 'shell', label: 'curl' },
  { key: 'python', lang: 'python', label: 'Python' },
  { key: 'node', lang: 'javascript', label: 'Node.js' },
  { key: 'php', lang: 'php', label: 'PHP' },
  { key: 'ruby', lang: 'ruby', label: 'Ruby' },
];

/** One entry of docs/samples.yaml (its header says what each field means). */
export interface SampleSpec extends Partial<Record<Language, string>> {
  path?: Record<string, string>;
  params?: Record<string, Value>;
  auth?: 'session' | 'none';
  result?: string;
  print?: string;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

/** What a sample needs of its operation in the contract. */
interface Call {
  operationId: string;
  method: Method;
  path: string;
  paginated: boolean;
  /** The operation's success statuses, one of which running the sample must get. */
  statuses: number[];
}

export function loadSampleSpecs(file = SAMPLES_PATH): Record<string, SampleSpec> {
  return YAML.parse(readFileSync(file, 'utf8')) as Record<string, SampleSpec>;
}

interface ParameterObject {
  $ref?: string;
  name?: string;
}

/** Every operation of the contract, as its samples call it. */
export function contractCalls(doc: OpenApiDocument): Call[] {
  return listOperations(doc).map(({ operationId, method, path }) => {
    const operation = doc.paths[path]?.[method];
    const parameters = (operation?.parameters ?? []) as ParameterObject[];
    const names = parameters.map((p) => (p.$ref ? (doc.components?.parameters?.[p.$ref.split('/').pop()!] as ParameterObject | undefined)?.name : p.name));
    const statuses = Object.keys(operation?.responses ?? {})
      .map(Number)
      .filter((code) => code >= 200 && code < 300);
    return { operationId, method, path, paginated: names.includes('cursor'), statuses };
  });
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^_/, '');
const camel = (name: string) => name.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const lowerFirst = (name: string) => name[0].toLowerCase() + name.slice(1);

/** `Contacts_create` → `['Contacts', 'create']`. */
function names(operationId: string): [string, string] {
  const [resource, method] = operationId.split('_');
  return [resource, method];
}

/** A string in quotes the language reads back as the same text, preferring `preferred`. */
function quote(text: string, preferred: '"' | "'"): string {
  const other = preferred === '"' ? "'" : '"';
  const q = text.includes(preferred) && !text.includes(other) ? other : preferred;
  return q + text.replace(/\\/g, '\\\\').replaceAll(q, `\\${q}`) + q;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Syntax {
  string(text: string): string;
  literal(value: boolean | null | number): string;
  list(items: string[]): string;
  map(entries: [string, string][]): string;
}

const PYTHON: Syntax = {
  string: (t) => quote(t, '"'),
  literal: (v) => (v === null ? 'None' : v === true ? 'True' : v === false ? 'False' : String(v)),
  list: (items) => `[${items.join(', ')}]`,
  map: (entries) => `{${entries.map(([k, v]) => `${quote(k, '"')}: ${v}`).join(', ')}}`,
};
const NODE: Syntax = {
  string: (t) => quote(t, "'"),
  literal: (v) => String(v),
  list: (items) => `[${items.join(', ')}]`,
  map: (entries) => (entries.length ? `{ ${entries.map(([k, v]) => `${IDENTIFIER.test(k) ? k : quote(k, "'")}: ${v}`).join(', ')} }` : '{}'),
};
const PHP: Syntax = {
  string: (t) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  literal: (v) => String(v),
  list: (items) => `[${items.join(', ')}]`,
  map: (entries) => `[${entries.map(([k, v]) => `${PHP.string(k)} => ${v}`).join(', ')}]`,
};
const RUBY: Syntax = {
  string: (t) => `'${t.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`,
  literal: (v) => (v === null ? 'nil' : String(v)),
  list: (items) => `[${items.join(', ')}]`,
  map: (entries) => `{ ${entries.map(([k, v]) => (IDENTIFIER.test(k) ? `${k}: ${v}` : `${RUBY.string(k)} => ${v}`)).join(', ')} }`,
};

function value(syntax: Syntax, v: Value): string {
  if (typeof v === 'string') return syntax.string(v);
  if (Array.isArray(v)) return syntax.list(v.map((item) => value(syntax, item)));
  if (v !== null && typeof v === 'object') return syntax.map(Object.entries(v).map(([k, item]) => [k, value(syntax, item)]));
  return syntax.literal(v);
}

/** `head(arg, arg)`, or one argument a line when that is too long to read. */
function call(head: string, args: string[], indent: string, close = ')'): string {
  const open = close === ')' ? '(' : '';
  const line = `${head}${open}${args.join(', ')}${close}`;
  if (line.length <= 100 || args.length < 2) return line;
  return `${head}${open}\n${args.map((a) => `${indent}${a},`).join('\n')}\n${close}`;
}

/** A printed field path (`opens.unique`, `data.0`) as attribute access. */
function access(path: string, field: (name: string) => string): string {
  if (path === '.') return '';
  return path
    .split('.')
    .map((part) => (/^\d+$/.test(part) ? `[${part}]` : field(part)))
    .join('');
}

function python(call_: Call, spec: SampleSpec): string {
  const [resource, method] = names(call_.operationId);
  const head =
    spec.auth === 'session'
      ? 'import os\n\nfrom sendline import Sendline\n\nclient = Sendline.login(os.environ["SENDLINE_BASE_URL"], "owner@example.com", os.environ["SENDLINE_PASSWORD"])\n'
      : 'from sendline import Sendline\n\nclient = Sendline()\n';
  const args = [
    ...Object.values(spec.path ?? {}).map((id) => PYTHON.string(id)),
    ...Object.entries(spec.params ?? {}).map(([k, v]) => `${k}=${value(PYTHON, v)}`),
  ];
  const invoke = (prefix: string) => call(`${prefix}client.${snake(resource)}.${snake(method)}`, args, '    ');
  const name = spec.result && snake(spec.result);
  const shown = name && spec.print ? `${name}${access(spec.print, (f) => `.${f}`)}` : '';
  if (call_.paginated && name) return `${head}for ${name} in ${invoke('')}:\n    print(${shown})\n`;
  if (name && spec.print) return `${head}${invoke(`${name} = `)}\nprint(${shown})\n`;
  return `${head}${invoke('')}\n`;
}

function node(call_: Call, spec: SampleSpec): string {
  const [resource, method] = names(call_.operationId);
  const head =
    spec.auth === 'session'
      ? "import { Sendline } from '@sendline/sdk';\n\nconst sendline = await Sendline.login({ email: 'owner@example.com', password: process.env.SENDLINE_PASSWORD });\n"
      : "import { Sendline } from '@sendline/sdk';\n\nconst sendline = new Sendline();\n";
  const ids = Object.values(spec.path ?? {}).map((id) => NODE.string(id));
  const params = Object.entries(spec.params ?? {}).map(([k, v]) => `${IDENTIFIER.test(k) ? k : NODE.string(k)}: ${value(NODE, v)}`);
  let args = ids;
  if (params.length) {
    const object = `{ ${params.join(', ')} }`;
    args = [...ids, object];
  }
  let invoke = (prefix: string) => `${prefix}sendline.${lowerFirst(resource)}.${method}(${args.join(', ')})`;
  if (invoke('const x = await ').length > 100 && params.length > 1) {
    const object = `{\n${params.map((p) => `  ${p},`).join('\n')}\n}`;
    invoke = (prefix) => `${prefix}sendline.${lowerFirst(resource)}.${method}(${[...ids, object].join(', ')})`;
  }
  const name = spec.result && camel(spec.result);
  const shown = name && spec.print ? `${name}${access(spec.print, (f) => `.${f}`)}` : '';
  if (call_.paginated && name) return `${head}for await (const ${name} of ${invoke('')}) {\n  console.log(${shown});\n}\n`;
  if (name && spec.print) return `${head}${invoke(`const ${name} = await `)};\nconsole.log(${shown});\n`;
  return `${head}${invoke('await ')};\n`;
}

function php(call_: Call, spec: SampleSpec): string {
  const [resource, method] = names(call_.operationId);
  const head =
    spec.auth === 'session'
      ? "$client = Sendline\\Sendline::login(getenv('SENDLINE_BASE_URL'), 'owner@example.com', getenv('SENDLINE_PASSWORD'));\n"
      : '$client = new Sendline\\Sendline();\n';
  const args = [...Object.values(spec.path ?? {}).map((id) => PHP.string(id)), ...Object.entries(spec.params ?? {}).map(([k, v]) => `${k}: ${value(PHP, v)}`)];
  const invoke = (prefix: string) => call(`${prefix}$client->${lowerFirst(resource)}->${method}`, args, '    ');
  const name = spec.result && `$${camel(spec.result)}`;
  const getter = (f: string) => `->get${camel(f)[0].toUpperCase()}${camel(f).slice(1)}()`;
  const shown = name && spec.print ? `${name}${access(spec.print, getter)}` : '';
  if (call_.paginated && name) return `${head}foreach (${invoke('')} as ${name}) {\n    echo ${shown}, "\\n";\n}\n`;
  if (name && spec.print) return `${head}${invoke(`${name} = `)};\necho ${shown}, "\\n";\n`;
  return `${head}${invoke('')};\n`;
}

function ruby(call_: Call, spec: SampleSpec): string {
  const [resource, method] = names(call_.operationId);
  const head =
    spec.auth === 'session'
      ? "require 'sendline'\n\nclient = Sendline::Client.login(email: 'owner@example.com', password: ENV.fetch('SENDLINE_PASSWORD'))\n"
      : "require 'sendline'\n\nclient = Sendline::Client.new\n";
  const args = [
    ...Object.values(spec.path ?? {}).map((id) => RUBY.string(id)),
    ...Object.entries(spec.params ?? {}).map(([k, v]) => `${k}: ${value(RUBY, v)}`),
  ];
  const target = `client.${snake(resource)}.${snake(method)}`;
  const invoke = (prefix: string) => (args.length ? call(`${prefix}${target}`, args, '  ') : `${prefix}${target}`);
  const name = spec.result && snake(spec.result);
  const shown = name && spec.print ? `${name}${access(spec.print, (f) => `.${f}`)}` : '';
  if (call_.paginated && name) return `${head}${invoke('')}.each { |${name}| puts ${shown} }\n`;
  if (name && spec.print) return `${head}${invoke(`${name} = `)}\nputs ${shown}\n`;
  return `${head}${invoke('')}\n`;
}

/** A query value as it may appear in a URL (`@` and `:` need no escaping in Sendline's queries). */
const queryValue = (v: Value): string =>
  encodeURIComponent(Array.isArray(v) ? v.map(queryValue).join(',') : typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))
    .replace(/%40/g, '@')
    .replace(/%3A/g, ':');

function curl(call_: Call, spec: SampleSpec, doc: OpenApiDocument): string {
  const path = call_.path.replace(/\{(\w+)\}/g, (_m, name: string) => spec.path?.[name] ?? `{${name}}`);
  const takesBody = Boolean(doc.paths[call_.path]?.[call_.method]?.requestBody);
  const params = Object.entries(spec.params ?? {});
  const query = !takesBody && params.length ? `?${params.map(([k, v]) => `${k}=${queryValue(v)}`).join('&')}` : '';
  const lines = [`curl${call_.method === 'get' ? '' : ` -X ${call_.method.toUpperCase()}`} "$SENDLINE_BASE_URL${API_BASE}${path}${query}"`];
  if (spec.auth === 'session') lines.push('-H "Authorization: Bearer $SENDLINE_TOKEN"');
  else if (spec.auth !== 'none') lines.push('-H "Authorization: Bearer $SENDLINE_API_KEY"');
  if (takesBody && params.length) {
    const compact = JSON.stringify(spec.params);
    const json = compact.length <= 80 ? compact : `{\n${params.map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(',\n')}\n  }`;
    lines.push('-H "Content-Type: application/json"', `-d '${json.replace(/'/g, "'\\''")}'`);
  }
  return `${lines.join(' \\\n  ')}\n`;
}

const RENDER: Record<Language, (c: Call, s: SampleSpec, doc: OpenApiDocument) => string> = { curl, python, node, php, ruby };

/** Every operation's samples, by operation id; an operation without an entry has none. */
export function renderSamples(doc: OpenApiDocument, specs: Record<string, SampleSpec> = loadSampleSpecs()): Map<string, CodeSample[]> {
  const out = new Map<string, CodeSample[]>();
  for (const c of contractCalls(doc)) {
    const spec = specs[c.operationId];
    if (!spec) continue;
    out.set(
      c.operationId,
      LANGUAGES.map(({ key, lang, label }) => ({ lang, label, source: spec[key] ?? RENDER[key](c, spec, doc) })),
    );
  }
  return out;
}

/** A copy of the document with each operation's samples as `x-codeSamples`, for the reference. */
export function withCodeSamples(doc: OpenApiDocument, samples = renderSamples(doc)): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const [path, item] of Object.entries(doc.paths)) {
    const copy = { ...item };
    for (const method of ['get', 'put', 'post', 'patch', 'delete'] as const) {
      const operation = item[method];
      const found = operation && samples.get(operation.operationId);
      if (operation && found) copy[method] = { ...operation, 'x-codeSamples': found } as typeof operation;
    }
    paths[path] = copy;
  }
  return { ...doc, paths };
}

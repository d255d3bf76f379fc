import createClient from 'openapi-fetch';
import type { components, operations as Operations, paths } from './schema.d.ts';
import { operations } from './operations.ts';

export type OperationId = keyof Operations;
export type Problem = components['schemas']['Problem'] & Record<string, unknown>;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: { [type: string]: infer B } } ? B : undefined;
type Params<O extends OperationId> = Operations[O]['parameters'];
type BodyOf<O extends OperationId> = Operations[O] extends { requestBody: infer R } ? JsonOf<R> : Operations[O] extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> | undefined : never;
type Success<O extends OperationId> = Extract<keyof Operations[O]['responses'], 200 | 201 | 202 | 204>;

/** What an operation takes: its path and query parameters, and its body. */
export type Args<O extends OperationId> = {
  path?: Params<O> extends { path: infer P } ? P : never;
  query?: Params<O> extends { query?: infer Q } ? Q : never;
  body?: BodyOf<O>;
};
/** What an operation answers on success. */
export type Result<O extends OperationId> = JsonOf<Operations[O]['responses'][Success<O>]>;

/** Every error answer of the API: the HTTP status and the RFC 9457 problem it carried. */
export class SendlineError extends Error {
  readonly status: number;
  readonly code: string;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(`${status} ${problem?.code ?? 'error'}: ${problem?.detail ?? ''}`);
    this.name = 'SendlineError';
    this.status = status;
    this.code = problem?.code ?? 'error';
    this.problem = problem;
  }
}

export interface SendlineOptions {
  /** e.g. `https://sendline.example.com/api/v1` */
  baseUrl: string;
  /** A JWT from `auth.login`, or an API key (`sl_…`), sent as `Authorization: Bearer`. */
  token?: string;
  /** An API key sent as `X-API-Key`. */
  apiKey?: string;
  fetch?: typeof fetch;
}

type ResourceName<O extends string> = O extends `${infer R}_${string}` ? R : never;
type MethodName<O extends string, R extends string> = O extends `${R}_${infer M}` ? M : never;

/** `sendline.contacts.create({ body })`: one property per tag, one method per operation. */
export type Resources = {
  [R in ResourceName<OperationId> as Uncapitalize<R>]: {
    [M in MethodName<OperationId, R>]: `${R}_${M}` extends infer O extends OperationId ? (args?: Args<O>) => Promise<Result<O>> : never;
  };
};

function resources(call: (id: OperationId, args?: Args<OperationId>) => Promise<unknown>): Resources {
  const tree: Record<string, Record<string, unknown>> = {};
  for (const id of Object.keys(operations) as OperationId[]) {
    const [resource, method] = id.split('_');
    const key = resource[0].toLowerCase() + resource.slice(1);
    (tree[key] ??= {})[method] = (args?: Args<OperationId>) => call(id, args);
  }
  return tree as Resources;
}

export type Sendline = Resources & {
  /** One call, by operation id, with the HTTP status: what the contract tests use. */
  request<O extends OperationId>(id: O, args?: Args<O>): Promise<{ status: number; data: Result<O> }>;
  /** Every item of a list, page after page. */
  paginate<O extends OperationId>(id: O, args?: Args<O>): AsyncGenerator<Result<O> extends { data: (infer I)[] } ? I : never>;
};

export function createSendline(options: SendlineOptions): Sendline {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  const client = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/+$/, ''), headers, fetch: options.fetch });

  async function request<O extends OperationId>(id: O, args: Args<O> = {}) {
    const [method, path] = operations[id];
    const send = (client as unknown as Record<string, (path: string, init: unknown) => Promise<{ data?: unknown; error?: unknown; response: Response }>>)[method];
    const { data, error, response } = await send(path, {
      params: { path: args.path, query: args.query },
      body: args.body,
      parseAs: (responseType(id) as 'json' | 'text'),
    });
    if (!response.ok) throw new SendlineError(response.status, error as Problem);
    return { status: response.status, data: data as Result<O> };
  }

  async function* paginate<O extends OperationId>(id: O, args: Args<O> = {}) {
    let cursor: string | undefined;
    do {
      const { data } = await request(id, { ...args, query: { ...(args.query as object), ...(cursor ? { cursor } : {}) } } as Args<O>);
      const page = data as { data: unknown[]; next_cursor: string | null };
      yield* page.data as never[];
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }

  return Object.assign(resources((id, args) => request(id, args).then((r) => r.data)), { request, paginate }) as Sendline;
}

/** CSV exports answer text; everything else JSON. */
function responseType(id: OperationId): 'json' | 'text' {
  return id === 'ContactImports_errors' ? 'text' : 'json';
}

/** Logs in with email and password and answers a client that uses the session's JWT. */
export async function login(baseUrl: string, email: string, password: string): Promise<Sendline> {
  const anonymous = createSendline({ baseUrl });
  const session = await anonymous.auth.login({ body: { email, password } });
  return createSendline({ baseUrl, token: (session as { token: string }).token });
}

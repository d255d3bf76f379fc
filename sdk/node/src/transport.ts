/**
 * The generated-operations layer: any operation of the contract by its id (`Contacts_get`),
 * with its path, query and body typed from the contract, sent by openapi-fetch with the client's
 * policy: base URL, credentials, User-Agent, timeout, retries with backoff, Idempotency-Key.
 */
import createClient from 'openapi-fetch';
import { APIConnectionError, APITimeoutError, ConfigurationError, errorFor, localValidationError, SendlineError, type Problem } from './errors.ts';
import { operations } from './operations.ts';
import type { operations as Operations, paths } from './schema.js';

export const VERSION = '0.1.0';
const USER_AGENT = `sendline-node/${VERSION}`;
const DEFAULT_BASE_URL = 'http://localhost:3000';
const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
/** Backoff: full jitter over 0.5 s doubled on each retry, at most 8 s. */
const BACKOFF_BASE_MS = 500;
const BACKOFF_CAP_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error is thrown at once. */
const RETRY_AFTER_CAP_S = 20;

export type OperationId = keyof typeof operations & keyof Operations;

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : T extends { content: { [type: string]: infer B } } ? B : undefined;
type Success<O extends OperationId> = Extract<keyof Operations[O]['responses'], 200 | 201 | 202 | 204>;
/** What an operation answers on success: its JSON (text for CSV exports, `undefined` for 204). */
export type Result<O extends OperationId> = JsonOf<Operations[O]['responses'][Success<O>]>;

/** Date-time fields (`created_after`, `scheduled_at`, …) also take a `Date`. */
export type WithDates<T, D extends PropertyKey> = [T] extends [object] ? { [K in keyof T]: K extends D ? T[K] | Date : T[K] } : T;
type DatesOf<O extends OperationId> = (typeof operations)[O]['dates'][number];

export type PathParams<O extends OperationId> = Operations[O]['parameters'] extends { path: infer P } ? P : never;
export type QueryParams<O extends OperationId> = WithDates<NonNullable<Operations[O]['parameters']['query']>, DatesOf<O>>;
export type Body<O extends OperationId> = WithDates<NonNullable<JsonOf<NonNullable<Operations[O]['requestBody']>>>, DatesOf<O>>;

/** An operation's arguments: `path` when it has path parameters, `query`, and `body` (required when the contract requires it). */
export type Args<O extends OperationId> = ([PathParams<O>] extends [never] ? { path?: undefined } : { path: PathParams<O> }) & {
  query?: QueryParams<O>;
} & (Operations[O] extends { requestBody: object } ? { body: Body<O> } : { body?: Body<O> });

export interface RequestOptions {
  /** Sent as `Idempotency-Key` on a POST (default: a new UUID per call, the same on each retry). */
  idempotencyKey?: string;
  /** Milliseconds for each attempt, answer included (default: the client's). */
  timeout?: number;
  /** Retries after the first attempt (default: the client's). */
  maxRetries?: number;
  /** Aborts the call (and its retries). */
  signal?: AbortSignal;
}

export interface ClientOptions {
  /** An API key (`sl_…`) or a session's JWT; default `SENDLINE_API_KEY`. */
  apiKey?: string;
  /** `https://mail.example.com`, with or without `/api` or `/api/v1`; default `SENDLINE_BASE_URL`, else `http://localhost:3000`. */
  baseUrl?: string;
  /** Milliseconds for each attempt, answer included (default 60 000). */
  timeout?: number;
  /** Retries on connection errors, timeouts, 408, 409 `idempotency_key_in_use`, 429 and 5xx (default 2; 0 disables). */
  maxRetries?: number;
  /** A `fetch` to send requests with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** What an operation answered: its status, typed JSON and headers. */
export interface Answer<O extends OperationId> {
  status: number;
  data: Result<O>;
  headers: Headers;
}

/** `https://host`, `…/`, `…/api`, `…/api/v1`, `…/v1` (slash or not) become `https://host/api/v1`. */
export function normaliseBaseUrl(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ConfigurationError(`Invalid base URL ${JSON.stringify(baseUrl)}: expected e.g. https://mail.example.com`, { cause });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigurationError(`Invalid base URL ${JSON.stringify(baseUrl)}: expected http:// or https://`);
  const path = url.pathname.replace(/\/+$/, '').replace(/(\/api\/v1|\/api|\/v1)$/, '');
  return `${url.origin}${path}/api/v1`;
}

/** The server's rule for `Idempotency-Key`: 1–255 printable ASCII characters, no space at either end. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]([\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** The API key, trimmed (a key read from a file keeps its newline); refused unless visible ASCII. Never quoted back. */
function checkedApiKey(apiKey: string | undefined): string {
  const key = typeof apiKey === 'string' ? apiKey.trim() : undefined;
  if (!key) throw new ConfigurationError('No API key: pass { apiKey } (an sl_… key or a session token) or set SENDLINE_API_KEY, or use Sendline.login()');
  if (!/^[\x21-\x7e]+$/.test(key)) throw new ConfigurationError('Invalid API key: it contains a character other than visible ASCII (a space, a line break, a control or non-ASCII character)');
  return key;
}

/** A path parameter must be a non-blank string (an empty id would call the collection's URL), or an integer (a version number). */
function checkedPath(template: string, path: unknown): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = path && typeof path === 'object' ? (path as Record<string, unknown>)[name] : undefined;
    if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    if (typeof value !== 'string' || value.trim() === '') throw localValidationError('validation_failed', `path.${name}`, `${name} must be a non-empty string`);
    return encodeURIComponent(value);
  });
}

/** Seconds from a `Retry-After` header: a number of seconds or an HTTP date. */
function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

function retryable(status: number, problem: Problem | undefined): boolean {
  return status === 408 || status === 429 || status >= 500 || (status === 409 && (problem?.code as string | undefined) === 'idempotency_key_in_use');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

/** Dates as RFC 3339 in query strings (bodies get theirs from `Date.prototype.toJSON`). */
function queryWithDates(query: unknown): Record<string, unknown> | undefined {
  if (!query || typeof query !== 'object') return undefined;
  return Object.fromEntries(Object.entries(query).map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]));
}

/** A 2xx answer's JSON; `undefined` for a 204 (the contract's only answers without content). */
function parsed(status: number, text: unknown): unknown {
  if (status === 204) return undefined;
  try {
    return JSON.parse(String(text));
  } catch (cause) {
    throw new SendlineError(`${status}: the answer is not JSON`, { status, code: 'invalid_response', cause });
  }
}

/** A request body the client sends as it is (multipart), rather than as JSON. */
export class RawBody {
  readonly body: FormData;

  constructor(body: FormData) {
    this.body = body;
  }
}

/** Arguments as `send` takes them: the shape of `Args`, without its types. */
export interface UncheckedArgs {
  path?: unknown;
  query?: unknown;
  body?: unknown;
}

type Call = (url: string, init: Record<string, unknown>) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

export class Transport {
  readonly baseUrl: string;
  readonly timeout: number;
  readonly maxRetries: number;
  readonly #apiKey: string | undefined;
  readonly #call: Call;

  constructor(options: ClientOptions & { anonymous?: boolean } = {}) {
    // Browsers have no `process`: there, the options say it all.
    const env = globalThis.process?.env ?? {};
    this.#apiKey = options.anonymous ? undefined : checkedApiKey(options.apiKey ?? env.SENDLINE_API_KEY);
    this.baseUrl = normaliseBaseUrl(options.baseUrl || env.SENDLINE_BASE_URL || DEFAULT_BASE_URL);
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const client = createClient<paths>({ baseUrl: this.baseUrl, fetch: options.fetch });
    this.#call = (url, init) =>
      (client.request as unknown as (method: string, url: string, init: unknown) => ReturnType<Call>)(init.method as string, url, init);
  }

  /** Calls one operation by its id; throws the SendlineError subclass of any non-2xx answer. */
  request<O extends OperationId>(id: O, args: Args<O>, options?: RequestOptions): Promise<Answer<O>> {
    return this.send(id, args, options);
  }

  /** `request` for arguments built at run time, unchecked by the contract's types (a multipart `RawBody` among them). */
  async send<O extends OperationId>(id: O, args: UncheckedArgs, options: RequestOptions = {}): Promise<Answer<O>> {
    const operation = operations[id];
    // Checked before anything is sent: no caller value reaches a header line or the wrong URL.
    const url = `${this.baseUrl}${checkedPath(operation.path, args.path)}`;
    if (options.idempotencyKey !== undefined && (typeof options.idempotencyKey !== 'string' || !IDEMPOTENCY_KEY.test(options.idempotencyKey)))
      throw localValidationError(
        'invalid_idempotency_key',
        'header.Idempotency-Key',
        'the Idempotency-Key must be 1 to 255 printable ASCII characters, without a space at either end',
      );
    const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: 'application/json' };
    if (this.#apiKey) headers.authorization = `Bearer ${this.#apiKey}`;
    if (operation.method === 'POST') headers['idempotency-key'] = options.idempotencyKey ?? globalThis.crypto.randomUUID();
    const raw = args.body instanceof RawBody ? args.body.body : undefined;
    const init = {
      method: operation.method.toLowerCase(),
      params: { path: args.path, query: queryWithDates(args.query) },
      body: raw ?? args.body,
      ...(raw ? { bodySerializer: (body: unknown) => body } : {}),
      // Parsed here, so that a 2xx that is not JSON is told apart with its status.
      parseAs: 'text',
      headers,
    };
    const maxRetries = options.maxRetries ?? this.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let failure: SendlineError;
      let wait: number | undefined;
      try {
        const { data, error, response } = await this.#attempt(operation.path, url, init, options);
        if (response.ok) return { status: response.status, data: (operation.text ? (data ?? '') : parsed(response.status, data)) as Result<O>, headers: response.headers };
        const problem = error && typeof error === 'object' ? (error as Problem) : undefined;
        const retryAfter = retryAfterSeconds(response.headers);
        failure = errorFor(response.status, problem, response.headers.get('x-request-id') ?? undefined, retryAfter);
        // A long Retry-After is the caller's decision: never block that long silently.
        if (!retryable(response.status, problem) || (retryAfter ?? 0) > RETRY_AFTER_CAP_S) throw failure;
        wait = retryAfter === undefined ? undefined : retryAfter * 1000;
      } catch (error) {
        if (!(error instanceof APIConnectionError)) throw error;
        failure = error;
      }
      if (attempt >= maxRetries) throw failure;
      await sleep(wait ?? Math.random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt), options.signal);
    }
  }

  /** One attempt, answer read, within the timeout; no answer becomes an APIConnectionError. */
  async #attempt(path: string, url: string, init: Record<string, unknown>, options: RequestOptions) {
    const timeout = options.timeout ?? this.timeout;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new APITimeoutError(`No answer from ${url} within ${timeout} ms`)), timeout);
    const abort = () => controller.abort(options.signal!.reason);
    if (options.signal?.aborted) abort();
    options.signal?.addEventListener('abort', abort, { once: true });
    try {
      return await this.#call(path, { ...init, signal: controller.signal });
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason as Error;
      if (controller.signal.reason instanceof APITimeoutError) throw new APITimeoutError(`No answer from ${url} within ${timeout} ms`, { cause });
      throw new APIConnectionError(
        `Could not reach ${url}: ${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)}`,
        { cause },
      );
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
    }
  }
}

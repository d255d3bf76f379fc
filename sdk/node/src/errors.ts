import type { components } from './schema.js';

/** An RFC 9457 problem document as the API answers it; some carry more members. */
export type Problem = components['schemas']['Problem'] & Record<string, unknown>;
/** A field at fault in a validation error: a JSON pointer (`/email`, `query.limit`) and why. */
export type FieldError = components['schemas']['FieldError'];

interface ErrorDetails {
  status?: number;
  problem?: Problem;
  requestId?: string;
  cause?: unknown;
  /** The code when there is no problem document (a local check, an answer that is not JSON). */
  code?: string;
}

/** Every error the SDK throws: API answers (`status`, `code`, `problem`), no answer, bad configuration, bad webhooks. */
export class SendlineError extends Error {
  /** The HTTP status, when the API answered. */
  readonly status: number | undefined;
  /** The problem's stable snake_case code (`contact_exists`), when the API answered one. */
  readonly code: string | undefined;
  /** The RFC 9457 body, when the API answered one. */
  readonly problem: Problem | undefined;
  /** The server's `X-Request-Id`, to quote when asking for help. */
  readonly requestId: string | undefined;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status;
    this.problem = details.problem;
    this.code = details.problem?.code ?? details.code;
    this.requestId = details.requestId;
  }
}

/** 400 or 422: the request does not fit the contract; `errors` lists the fields at fault. */
export class ValidationError extends SendlineError {
  readonly #errors: FieldError[] | undefined;

  constructor(message: string, details: ErrorDetails & { errors?: FieldError[] } = {}) {
    super(message, details);
    this.#errors = details.errors;
  }

  get errors(): FieldError[] {
    return this.#errors ?? this.problem?.errors ?? [];
  }
}
/** 401: no valid API key or session. */
export class AuthenticationError extends SendlineError {}
/** 403: the key lacks the scope, or is used from an address it does not allow. */
export class PermissionDeniedError extends SendlineError {}
/** 404 */
export class NotFoundError extends SendlineError {}
/** 409: a conflict; `existingId` names the existing resource when the API says which. */
export class ConflictError extends SendlineError {
  get existingId(): string | undefined {
    return this.problem?.existing_id;
  }
}
/** 429: too many requests; `retryAfter` is the wait in seconds the API asked for. */
export class RateLimitError extends SendlineError {
  readonly retryAfter: number | undefined;

  constructor(message: string, details: ErrorDetails & { retryAfter?: number }) {
    super(message, details);
    this.retryAfter = details.retryAfter;
  }
}
/** 5xx */
export class ServerError extends SendlineError {}
/** No answer: the connection failed (the cause is chained). */
export class APIConnectionError extends SendlineError {}
/** No answer within the timeout. */
export class APITimeoutError extends APIConnectionError {}
/** The client is set up wrong: no or an invalid API key, a bad base URL (never names the key). */
export class ConfigurationError extends SendlineError {}
/** A webhook delivery that is not signed with the secret, too old or malformed. */
export class WebhookVerificationError extends SendlineError {}

/** The error class of an API answer with this status. */
export function errorFor(status: number, problem: Problem | undefined, requestId: string | undefined, retryAfter: number | undefined): SendlineError {
  const detail = problem?.detail ?? problem?.title;
  const message = `${status}${problem?.code ? ` ${problem.code}` : ''}${detail ? `: ${detail}` : ''}`;
  const details = { status, problem, requestId };
  if (status === 400 || status === 422) return new ValidationError(message, details);
  if (status === 401) return new AuthenticationError(message, details);
  if (status === 403) return new PermissionDeniedError(message, details);
  if (status === 404) return new NotFoundError(message, details);
  if (status === 409) return new ConflictError(message, details);
  if (status === 429) return new RateLimitError(message, { ...details, retryAfter });
  if (status >= 500) return new ServerError(message, details);
  return new SendlineError(message, details);
}

/** A `ValidationError` raised before anything is sent (no `status`): the argument at `pointer` is wrong. */
export function localValidationError(code: string, pointer: string, detail: string, cause?: unknown): ValidationError {
  return new ValidationError(`${code}: ${detail}`, { code, errors: [{ pointer, detail }], cause });
}

export { Sendline } from './client.ts';
export {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  ConfigurationError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  SendlineError,
  ServerError,
  ValidationError,
  WebhookVerificationError,
  type FieldError,
  type Problem,
} from './errors.ts';
export type { ContactImport, CsvSource, ImportCsvParams } from './imports.ts';
export { PageIterator, type Page } from './pagination.ts';
export type { Method, Params, Resources } from './resources.ts';
export {
  Transport,
  VERSION,
  type Answer,
  type Args,
  type ClientOptions,
  type OperationId,
  type RequestOptions,
  type Result,
  type UncheckedArgs,
} from './transport.ts';
export type { WaitOptions } from './wait.ts';
export { UnknownEvent, Webhook, type KnownEvent, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export type { components, operations, paths } from './schema.js';

import type { components } from '../../generated/openapi.d.ts';
import type { Method, OpenApiDocument } from './document.ts';

/**
 * Every `code` a problem document can carry: the contract's catalogue (`ProblemCode` in
 * spec/common.tsp). A code the server uses that the contract does not declare fails `tsc`.
 */
export type ProblemCode = components['schemas']['ProblemCode'];

/** The status each code is answered with (the contract's error responses agree: a test checks). */
export const PROBLEM_STATUS = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_multipart: 400,
  malformed_request: 400,
  authentication_required: 401,
  invalid_token: 401,
  invalid_api_key: 401,
  ambiguous_credentials: 400,
  invalid_credentials: 401,
  refresh_token_reused: 401,
  insufficient_scope: 403,
  insufficient_role: 403,
  session_required: 403,
  ip_not_allowed: 403,
  signup_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  email_taken: 409,
  contact_exists: 409,
  last_owner: 409,
  invalid_state_transition: 409,
  payload_too_large: 413,
  too_many_rows: 413,
  unsupported_media_type: 415,
  contact_not_found: 422,
  campaign_not_found: 422,
  invalid_click_token: 422,
  invalid_url: 422,
  insecure_url: 422,
  unsafe_url: 422,
  rate_limited: 429,
  too_many_login_attempts: 429,
  too_many_signups: 429,
  too_many_invalid_api_keys: 429,
  too_many_imports: 429,
  too_many_exports: 429,
  headers_too_large: 431,
  invalid_idempotency_key: 400,
  idempotency_key_in_use: 409,
  idempotency_key_reused: 422,
  template_error: 422,
  template_name_taken: 409,
  template_in_use: 409,
  internal_error: 500,
  not_implemented: 501,
  starting: 503,
  field_exists: 409,
  topic_exists: 409,
  export_not_ready: 409,
  wrong_password: 422,
  domain_exists: 409,
  too_many_domains: 409,
  domain_not_verified: 422,
  dkim_rotation_in_progress: 409,
  dkim_no_rotation: 409,
  dkim_not_verified: 409,
  enrollment_finished: 409,
} as const satisfies Record<ProblemCode, number>;

export interface CatalogueEntry {
  code: ProblemCode;
  status: number;
  /** Markdown-ish text: `code` spans. */
  meaning: string;
}

/**
 * The error catalogue (`/docs/errors`) from the contract document: each code with its meaning
 * (the doc comment of its variant in the spec) and status.
 */
export function problemCatalogue(doc: OpenApiDocument): CatalogueEntry[] {
  const schema = doc.components?.schemas?.ProblemCode;
  const meanings = schema?.['x-enum-descriptions'] ?? [];
  // The contract's ProblemCode enum is the type ProblemCode: its values are the type's members.
  return ((schema?.enum ?? []) as ProblemCode[]).map((code, i) => ({ code, status: PROBLEM_STATUS[code], meaning: meanings[i] ?? '' }));
}

/** The codes an operation of the contract declares, by error status. */
export function declaredProblemCodes(doc: OpenApiDocument, path: string, method: Method): Map<number, ProblemCode[]> {
  const declared = new Map<number, ProblemCode[]>();
  for (const [status, response] of Object.entries(doc.paths[path]?.[method]?.responses ?? {})) {
    const ref = response.content?.['application/problem+json']?.schema?.$ref;
    const codes = ref && doc.components?.schemas?.[ref.replace('#/components/schemas/', '')]?.properties?.code?.enum;
    // A problem response's `code` enum lists members of ProblemCode (the spec builds it from them).
    if (codes) declared.set(Number(status), codes as ProblemCode[]);
  }
  return declared;
}

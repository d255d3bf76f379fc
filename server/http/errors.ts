import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.ts';
import { Problem, sendProblem, validationFailed, type FieldError } from '../contract/problem.ts';
import type { ProblemCode } from '../contract/problem-codes.ts';
import { leanFieldErrors } from '../contract/union-errors.ts';

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path: string; message: string; errorCode?: string }[];
  headers?: Record<string, string>;
}

/** The validator's `/body/from_email` → `/from_email`; `/query/limit` → `query.limit`. */
function pointerOf(path: string): string {
  const [location, ...rest] = path.replace(/^[./]/, '').split(/[./]/);
  if (location === 'body') return '/' + rest.join('/');
  return [location, ...rest].join('.');
}

function fieldErrors(error: ValidatorError): FieldError[] {
  return leanFieldErrors(
    (error.errors ?? []).map((e) => ({
      pointer: pointerOf(e.path),
      detail: e.errorCode === 'additionalProperties.openapi.validation' ? 'is not a known field' : e.message,
      keyword: e.errorCode?.split('.')[0] ?? '',
    })),
  );
}

/** Turns anything thrown into a problem document. */
export function toProblem(error: unknown): Problem {
  if (error instanceof Problem) return error;
  const e = error as { type?: string; status?: number } & ValidatorError;
  if (e?.type === 'entity.too.large') return new Problem(413, 'payload_too_large', 'The request body is larger than allowed.');
  if (e?.type === 'entity.parse.failed') return new Problem(400, 'invalid_json', 'The request body is not valid JSON.');
  // The router decodes path parameters; only a path can carry broken percent-encoding that far.
  if (error instanceof URIError) return validationFailed([{ pointer: 'path', detail: 'is not valid percent-encoding' }]);
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return new Problem(415, 'unsupported_media_type', 'The request body encoding is not supported.');
  }
  switch (e?.status) {
    case 400:
      return validationFailed(fieldErrors(e));
    case 413:
      return new Problem(413, 'payload_too_large', 'The request body is larger than allowed.');
    case 415:
      return new Problem(415, 'unsupported_media_type', e.message);
    case 405:
      return new Problem(405, 'method_not_allowed', e.message, { headers: e.headers });
    case 404:
      return new Problem(404, 'not_found', 'No such route.');
  }
  return new Problem(500, 'internal_error', 'Something went wrong on our side; it has been logged.');
}

export function errorHandler(log: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const problem = toProblem(error);
    if (problem.status >= 500) log.error({ err: error, reqId: req.id, path: req.path }, 'request failed');
    if (res.headersSent) return res.destroy();
    sendProblem(res, problem);
  };
}

/**
 * With responses validated (tests): a problem whose code the operation does not declare for its
 * status becomes a 500, as a response off the contract does. Server errors (5xx) may come from
 * any operation and are not declared.
 */
export function refuseUndeclaredCodes(operationId: string, declared: Map<number, ProblemCode[]>) {
  return (error: unknown, _req: Request, _res: Response, next: NextFunction) => {
    const problem = toProblem(error);
    if (problem.status < 500 && !declared.get(problem.status)?.includes(problem.code)) {
      return next(new Error(`${operationId} answered ${problem.status} ${problem.code}, which the contract does not declare for it`, { cause: error }));
    }
    next(error);
  };
}

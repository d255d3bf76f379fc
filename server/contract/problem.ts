import type { Response } from 'express';
import type { ProblemCode } from './problem-codes.ts';

export interface FieldError {
  pointer: string;
  detail: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

export const titleOf = (status: number) => TITLES[status] ?? 'Error';

/** An RFC 9457 problem; thrown anywhere, answered by the error handler. */
export class Problem extends Error {
  readonly status: number;
  readonly code: ProblemCode;
  readonly errors?: FieldError[];
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ProblemCode,
    detail: string,
    options: { errors?: FieldError[]; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.status = status;
    this.code = code;
    this.errors = options.errors;
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  toJSON() {
    return {
      type: `/docs/errors#${this.code}`,
      title: titleOf(this.status),
      status: this.status,
      detail: this.message,
      code: this.code,
      success: false,
      ...(this.errors ? { errors: this.errors } : {}),
      ...this.extra,
    };
  }
}

export const notFound = (what = 'resource') => new Problem(404, 'not_found', `No such ${what}.`);

export const validationFailed = (errors: FieldError[], detail = 'The request is not valid.') => new Problem(400, 'validation_failed', detail, { errors });

export const forbidden = (code: ProblemCode, detail: string) => new Problem(403, code, detail);

export const conflict = (code: ProblemCode, detail: string, extra?: Record<string, unknown>) => new Problem(409, code, detail, { extra });

export function sendProblem(res: Response, problem: Problem): void {
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.status(problem.status).type('application/problem+json').send(JSON.stringify(problem.toJSON()));
}

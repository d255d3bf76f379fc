import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { requireScope, type Principal } from '../principal.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { listOperations, validatorDocument, routeTable, type ContractOperation, type OpenApiDocument } from '../contract/document.ts';
import type { Call, Handler, HandlerMap, OperationId, StreamedBody } from './operations.ts';
import { rejectUnusableInput } from './input-guard.ts';
import { Problem } from '../contract/problem.ts';
import { refuseUndeclaredCodes } from './errors.ts';
import { declaredProblemCodes } from '../contract/problem-codes.ts';
import { isValidEmail } from '../email.ts';
import { applyRateLimit, type WindowCount } from '../rate-limits/limiter.ts';
import { rememberRoutePatterns } from './route-patterns.ts';
import { labelRoute } from '../metrics/http.ts';
import { isStorableDateTime, toUtc } from '../contract/timestamps.ts';
import { checkIdempotencyKey, hashJsonBody, idempotent, type IdempotencyKeys } from './idempotency.ts';

/**
 * Who is calling, as the router asks it of a unit of work's services (`S`): declared here,
 * answered by auth/ and api-keys/, handed in by the composition root.
 */
export interface Authentication<S> {
  /** The caller behind the request's credentials; throws the Problem that refuses it. */
  authenticate(req: Request, services: S): Promise<Principal>;
  /** Counts a session's request against its user's rate limit (authentication counts an API key's). */
  countRequest(userId: string, services: S): Promise<WindowCount>;
}

interface ApiLocals<S> {
  services: S;
  principal: Principal | null;
}

const locals = <S = unknown>(res: Response) => res.locals as ApiLocals<S>;

const notImplemented: Handler<OperationId, unknown> = () => {
  throw new Problem(501, 'not_implemented', 'This operation is part of the API contract but not implemented on this server yet.');
};

/** Answers 404 for paths outside the contract and 405 (with `Allow`) for a wrong method. */
function contractRoutes(operations: ContractOperation[]) {
  const allowedMethods = routeTable(operations);
  return (req: Request, _res: Response, next: NextFunction) => {
    const methods = allowedMethods(req.path);
    if (!methods) throw new Problem(404, 'not_found', `No route ${req.baseUrl}${req.path}.`);
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (!methods.includes(method)) {
      throw new Problem(405, 'method_not_allowed', `${req.method} is not allowed here; use ${methods.join(', ')}.`, {
        headers: { Allow: methods.join(', ') },
      });
    }
    next();
  };
}

/** Authentication, rate limit and scope, before validation: a stranger learns nothing from a 400. */
function guard<S>(op: ContractOperation, authentication: Authentication<S>) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const { services } = locals<S>(res);
    const principal = await authentication.authenticate(req, services);
    locals(res).principal = principal;
    const counted = principal.counted ?? (await authentication.countRequest(principal.userId!, services));
    applyRateLimit(res, counted, principal.rateLimitPerMinute);
    requireScope(principal, op.method.toUpperCase());
    next();
  };
}

function run(handler: Handler<OperationId, unknown>) {
  return async (req: Request, res: Response) => {
    // The validator has checked body, params and query against this operation, as Call types them.
    const call = {
      body: req.body as unknown,
      params: req.params,
      query: req.query,
      principal: locals(res).principal,
      services: locals(res).services,
      req,
      res,
    } as unknown as Call<OperationId, unknown>;
    const reply = (await handler(call)) as { status: number; body?: unknown; stream?: StreamedBody };
    if (reply.stream) await sendStream(res, reply.status, reply.stream);
    else if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  };
}

async function sendStream(res: Response, status: number, stream: StreamedBody): Promise<void> {
  res.status(status).type(stream.type);
  if (stream.filename) res.setHeader('Content-Disposition', `attachment; filename="${stream.filename}"`);
  for await (const chunk of stream.chunks) {
    if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

/**
 * Bodies that are not JSON (CSV uploads) are left unread for the handler to stream; the
 * validator gets a stand-in of the declared shape, so it still checks the query.
 */
function leaveStreamedBodies(req: Request, _res: Response, next: NextFunction) {
  if (req.is('text/*')) req.body = '';
  else if (req.is('multipart/form-data')) req.body = { file: '' };
  next();
}

/** Response timestamps: Dates as RFC 3339; anything else (null, text) as it is. */
function serializeDateTime(value: unknown): string {
  return value instanceof Date ? value.toISOString() : (value as string);
}

/** The whole API, built from the contract: every operation gets its handler or a 501. */
export interface ApiOptions {
  /** JSON body limits above the default, by operation (bulk imports). */
  jsonLimits?: Partial<Record<OperationId, number>>;
}

/** What the router is handed: settings, a unit of work's services per request, and how to tell who calls. */
export interface ApiDeps<S> {
  config: Config;
  log: Logger;
  services: () => S;
  authentication: Authentication<S>;
  /** Where Idempotency-Keys and their answers are kept. */
  idempotencyKeys: IdempotencyKeys;
}

export function apiRouter<S>(doc: OpenApiDocument, deps: ApiDeps<S>, implemented: HandlerMap<S>, options: ApiOptions = {}): Router {
  const { config } = deps;
  rememberRoutePatterns();
  const operations = listOperations(doc);
  const router = express.Router();
  router.use(contractRoutes(operations));
  router.use((_req, res, next) => {
    locals(res).services = deps.services();
    next();
  });
  const validator = OpenApiValidator.middleware({
    apiSpec: validatorDocument(doc, { responses: config.validateResponses }) as never,
    // Query and path values are text and are always coerced; JSON bodies have types of their own (`false` is no name).
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true },
    validateResponses: config.validateResponses,
    validateSecurity: false,
    validateApiSpec: false,
    fileUploader: false,
    $refParser: { mode: 'bundle' },
    // One address rule for the API, imports and sending: the contract's `email` format is
    // Sendline's. Timestamps are checked against what PostgreSQL can store and reach handlers in UTC.
    formats: { email: { type: 'string', validate: isValidEmail }, 'date-time': isStorableDateTime },
    serDes: [{ format: 'date-time', deserialize: toUtc, serialize: serializeDateTime }],
  });
  const idempotency = {
    keys: deps.idempotencyKeys,
    log: deps.log,
    maxStreamedBytes: config.imports.maxBytes + 1024 * 1024,
  };
  for (const op of operations) {
    const handler = (implemented as Record<string, Handler<OperationId, unknown>>)[op.operationId] ?? notImplemented;
    const limit = options.jsonLimits?.[op.operationId as OperationId] ?? config.bodyLimitBytes;
    const post = op.method === 'post';
    const json = express.json({ limit, type: ['application/json', 'application/*+json'], ...(post ? { verify: hashJsonBody } : {}) });
    // Only operations that declare a body read one (a GET with a large body is no 413).
    const form = op.takesForm ? [express.urlencoded({ limit, extended: false, parameterLimit: 20 })] : [];
    const body = op.takesBody ? [json, ...form, leaveStreamedBodies] : [];
    const codeCheck = config.validateResponses ? [refuseUndeclaredCodes(op.operationId, declaredProblemCodes(doc, op.path, op.method))] : [];
    // Every POST takes an Idempotency-Key; without a caller to scope it to, it is checked and ignored.
    const keyCheck = post ? [checkIdempotencyKey] : [];
    const once = post && op.authenticated ? [idempotent(idempotency, op.takesBody)] : [];
    // The contract's template, e.g. `/api/v1/contacts/{id}`: the metrics' route label.
    const route = (req: Request, res: Response, next: NextFunction) => {
      labelRoute(res, `${req.baseUrl}${op.path}`);
      next();
    };
    const chain = [
      route,
      ...(op.authenticated ? [guard(op, deps.authentication)] : []),
      ...keyCheck,
      ...body,
      rejectUnusableInput,
      ...validator,
      ...once,
      run(handler),
      ...codeCheck,
    ];
    // Express types each method of a Router apart; op.method is one of get, put, post, patch, delete.
    (router as unknown as Record<string, (path: string, ...h: unknown[]) => void>)[op.method](op.expressPath, ...chain);
  }
  return router;
}

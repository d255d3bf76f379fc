import type { Request, Response } from 'express';
import type { operations } from '../../generated/openapi.d.ts';
import type { Principal } from '../principal.ts';

export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : undefined;
type Responses<O extends OperationId> = operations[O]['responses'];
type SuccessStatus<O extends OperationId> = Extract<keyof Responses<O>, 200 | 201 | 202 | 204 | 303>;

export type RequestBody<O extends OperationId> = operations[O] extends { requestBody?: infer R } ? JsonContent<NonNullable<R>> : undefined;
export type ResponseBody<O extends OperationId, S extends keyof Responses<O>> = JsonContent<Responses<O>[S]>;

/** What a handler receives: the validated request, the caller and the services it declared (`S`). */
export interface Call<O extends OperationId, S> {
  body: RequestBody<O>;
  params: operations[O]['parameters'] extends { path: infer P } ? P : Record<string, never>;
  query: NonNullable<operations[O]['parameters']['query']>;
  /** Null only for operations declared without authentication. */
  principal: Principal;
  services: S;
  req: Request;
  res: Response;
}

/** A body sent as it is produced (CSV exports), for operations whose answer is not JSON. */
export interface StreamedBody {
  type: string;
  filename?: string;
  chunks: AsyncIterable<string | Uint8Array>;
}

/** A typed answer: one of the operation's success statuses with its body. */
export type Reply<O extends OperationId> = {
  [S in SuccessStatus<O>]: ResponseBody<O, S> extends undefined ? { status: S; stream?: StreamedBody } : { status: S; body: ResponseBody<O, S> };
}[SuccessStatus<O>];

export type Handler<O extends OperationId, S> = (call: Call<O, S>) => Promise<Reply<O>> | Reply<O>;

export type HandlerMap<S> = { [O in OperationId]?: Handler<O, S> };

/**
 * Declares a feature's handlers: their operation ids checked against the contract, and the
 * services they use (`S`), which the composition root's must include.
 */
export function handlers<S>() {
  return <M extends HandlerMap<S>>(map: M): M => map;
}

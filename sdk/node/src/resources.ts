/**
 * The resource namespaces (`sendline.contacts.create({ email })`), one method per operation of
 * the contract: path parameters positional, then one object of body fields or query parameters,
 * then the call's options. List operations answer a lazy `PageIterator` over every item.
 */
import { operations } from './operations.ts';
import { PageIterator, type Page } from './pagination.ts';
import type { Body, OperationId, QueryParams, RequestOptions, Result, Transport } from './transport.ts';

type Meta<O extends OperationId> = (typeof operations)[O];

type PathNames<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? [Name, ...PathNames<Rest>] : [];
type Strings<T extends unknown[]> = { [K in keyof T]: string };
type PathArgs<O extends OperationId> = Strings<PathNames<Meta<O>['path']>>;

/** The one object of named arguments: the JSON body's fields, or the query parameters. */
export type Params<O extends OperationId> = Meta<O>['body'] extends true ? Body<O> : Meta<O>['query'] extends [] ? never : QueryParams<O>;
type ParamArgs<O extends OperationId> = [Params<O>] extends [never] ? [] : {} extends Params<O> ? [params?: Params<O>] : [params: Params<O>];

type Paginated<O extends OperationId> = 'cursor' extends Meta<O>['query'][number] ? true : false;
type ItemOf<O extends OperationId> = Result<O> extends Page<infer I> ? I : never;
type Returns<O extends OperationId> = Paginated<O> extends true ? PageIterator<ItemOf<O>, Extract<Result<O>, Page<ItemOf<O>>>> : Promise<Result<O>>;

/** `contacts.get(id, options?)`, `contacts.create(params, options?)`, `contacts.list(params?, options?)`, … */
export type Method<O extends OperationId> = (...args: [...PathArgs<O>, ...ParamArgs<O>, options?: RequestOptions]) => Returns<O>;

type ResourceOf<O extends string> = O extends `${infer R}_${string}` ? R : never;
type MethodOf<O extends string, R extends string> = O extends `${R}_${infer M}` ? M : never;

/** Every resource of the contract, named after its tag in camelCase, with one method per operation. */
export type Resources = {
  [R in ResourceOf<OperationId> as Uncapitalize<R>]: { [M in MethodOf<OperationId, R>]: `${R}_${M}` extends infer O extends OperationId ? Method<O> : never };
};

function pathNames(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
}

function method(transport: Transport, id: OperationId): (...args: unknown[]) => unknown {
  const operation = operations[id];
  const names = pathNames(operation.path);
  const takesParams = operation.body || operation.query.length > 0;
  return (...args: unknown[]) => {
    // Checked by the transport: a missing or blank id rejects with a ValidationError, nothing sent.
    const path = Object.fromEntries(names.map((param, index) => [param, args[index]]));
    const params = takesParams ? (args[names.length] as Record<string, unknown> | undefined) : undefined;
    const options = args[names.length + (takesParams ? 1 : 0)] as RequestOptions | undefined;
    const call = (query: Record<string, unknown> | undefined) =>
      transport.send(id, { path, ...(operation.body ? { body: params ?? {} } : { query }) }, options).then((answer) => answer.data);
    if (!operation.query.includes('cursor' as never)) return call(params);
    return new PageIterator((cursor) => call({ ...params, ...(cursor ? { cursor } : {}) }) as Promise<Page<unknown>>);
  };
}

export function resources(transport: Transport): Resources {
  const tree: Record<string, Record<string, unknown>> = {};
  for (const id of Object.keys(operations) as OperationId[]) {
    const [resource, name] = id.split('_');
    (tree[resource[0].toLowerCase() + resource.slice(1)] ??= {})[name] = method(transport, id);
  }
  return tree as Resources;
}

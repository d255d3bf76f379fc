import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isValidEmail } from '../email.ts';
import { loadContract } from '../contract/document.ts';
import type { FieldError } from '../contract/problem.ts';
import { leanFieldErrors } from '../contract/union-errors.ts';
import { isStorableDateTime } from '../contract/timestamps.ts';
import type { EmailSendRequest } from './rules.ts';

/**
 * The items of `POST /emails/batch` are checked one by one against the contract's
 * `EmailSendRequest`, with the API's own formats: one bad item refuses that item, not the batch.
 */
let compiled: ValidateFunction<EmailSendRequest> | null = null;
let compiledFields: ValidateFunction<SendFields> | null = null;
let contractAjv: Ajv | null = null;

/** The contract's schemas, with the API's own formats. */
function ajvOfContract(): Ajv {
  if (contractAjv) return contractAjv;
  contractAjv = new Ajv({ allErrors: true, strict: false });
  contractAjv.addFormat('email', { type: 'string', validate: isValidEmail });
  contractAjv.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  contractAjv.addSchema({ $id: 'contract', components: loadContract().components }, 'contract');
  return contractAjv;
}

function validator(): ValidateFunction<EmailSendRequest> {
  compiled ??= ajvOfContract().compile<EmailSendRequest>({ $ref: 'contract#/components/schemas/EmailSendRequest' });
  return compiled;
}

/** The fields a message submitted over SMTP sets in headers of its own. */
export type SendFields = Pick<EmailSendRequest, 'tags' | 'metadata'>;

function fieldsValidator(): ValidateFunction<SendFields> {
  const property = (name: keyof SendFields) => ({ $ref: `contract#/components/schemas/EmailSendRequest/properties/${name}` });
  compiledFields ??= ajvOfContract().compile<SendFields>({ type: 'object', properties: { tags: property('tags'), metadata: property('metadata') } });
  return compiledFields;
}

function pointerOf(e: ErrorObject): string {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  const name = params.missingProperty ?? params.additionalProperty;
  return name === undefined ? e.instancePath || '/' : `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function errorsOf(list: ErrorObject[] | null | undefined): FieldError[] {
  return leanFieldErrors((list ?? []).map((e) => ({ pointer: pointerOf(e), detail: e.message ?? 'is not valid', keyword: e.keyword })));
}

/** The item as a request, or what is wrong with it (one entry per pointer). */
export function checkBatchItem(item: unknown): { body: EmailSendRequest; errors: null } | { body: null; errors: FieldError[] } {
  const validate = validator();
  if (validate(item)) return { body: item, errors: null };
  return { body: null, errors: errorsOf(validate.errors) };
}

/** `tags` and `metadata` checked against the contract as `POST /emails` checks them. */
export function checkSendFields(given: unknown): { fields: SendFields; errors: null } | { fields: null; errors: FieldError[] } {
  const validate = fieldsValidator();
  if (validate(given)) return { fields: given, errors: null };
  return { fields: null, errors: errorsOf(validate.errors) };
}

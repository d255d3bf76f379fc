import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { isValidEmail } from '../email.ts';
import { loadContract } from '../http/contract.ts';
import type { FieldError } from '../http/problem.ts';
import { isStorableDateTime } from '../http/timestamps.ts';
import type { EmailSendRequest } from './rules.ts';

/**
 * The items of `POST /emails/batch` are checked one by one against the contract's
 * `EmailSendRequest`, with the API's own formats: one bad item refuses that item, not the batch.
 */
let compiled: ValidateFunction<EmailSendRequest> | null = null;

function validator(): ValidateFunction<EmailSendRequest> {
  if (compiled) return compiled;
  const ajv = new Ajv({ allErrors: true, strict: false });
  ajv.addFormat('email', { type: 'string', validate: isValidEmail });
  ajv.addFormat('date-time', { type: 'string', validate: isStorableDateTime });
  ajv.addSchema({ $id: 'contract', components: loadContract().components }, 'contract');
  compiled = ajv.compile<EmailSendRequest>({ $ref: 'contract#/components/schemas/EmailSendRequest' });
  return compiled;
}

function pointerOf(e: ErrorObject): string {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  const name = params.missingProperty ?? params.additionalProperty;
  return name === undefined ? e.instancePath || '/' : `${e.instancePath}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** The item as a request, or what is wrong with it (one entry per pointer). */
export function checkBatchItem(item: unknown): { body: EmailSendRequest; errors: null } | { body: null; errors: FieldError[] } {
  const validate = validator();
  if (validate(item)) return { body: item, errors: null };
  const errors = new Map<string, string>();
  // A union's branches each report; the first error per pointer says enough.
  for (const e of validate.errors ?? []) if (!errors.has(pointerOf(e))) errors.set(pointerOf(e), e.message ?? 'is not valid');
  return { body: null, errors: [...errors].map(([pointer, detail]) => ({ pointer, detail })) };
}

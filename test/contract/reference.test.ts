import { describe, expect, it } from 'vitest';
import {
  contractExamples,
  documentParameters,
  documentProperties,
  familiesWithoutErrorExample,
  missingReferenceParts,
  referenceDocument,
  referenceOperations,
  schemaValidators,
} from './reference.ts';

const doc = referenceDocument();

const SENDLINE_ID = /^[a-z]{2,4}_[0-9A-Za-z]{22}$/;
/** `*_id` fields that hold the caller's own ids, not Sendline's. */
const NOT_SENDLINE_IDS = new Set(['external_id', 'affiliate_id', 'public_id', 'step_id']);
/** An automation's steps are named by the account (`welcome`, `wait-3d`): their `id` is theirs. */
const STEP_TYPES = new Set(['send_email', 'wait', 'wait_for_event', 'condition', 'split', 'update_contact', 'webhook', 'exit']);

/**
 * Properties whose name and type say all there is: a resource's own `id` (its prefix is in its
 * schema's description or its path), and the date-times it was made and last changed.
 */
const SELF_EVIDENT_PROPERTIES = new Set(['id', 'created_at', 'updated_at']);
/** The `{id}` of a path names the resource the path is about, in the form its schema's `id` has. */
const SELF_EVIDENT_PARAMETERS = new Set(['path id']);

describe('the reference', () => {
  it('gives every operation a summary, a description, and request and response examples', () => {
    const gaps = referenceOperations(doc)
      .map((op) => ({ op: `${op.operation.operationId} (${op.method.toUpperCase()} ${op.path})`, missing: missingReferenceParts(op) }))
      .filter((gap) => gap.missing.length > 0);
    expect(gaps).toEqual([]);
  });

  it('shows an error response in every family of operations', () => {
    expect(familiesWithoutErrorExample(referenceOperations(doc))).toEqual([]);
  });

  it('holds examples only of values their schemas accept', () => {
    const examples = contractExamples(doc);
    expect(examples.length).toBeGreaterThan(0);
    const validatorOf = schemaValidators(doc);
    const invalid = examples.flatMap((example) => {
      const validate = validatorOf(example.schemaPointer);
      return validate(example.value) ? [] : [{ example: example.name, errors: validate.errors?.map((e) => `${e.instancePath} ${e.message}`) }];
    });
    expect(invalid).toEqual([]);
  });

  it('has realistic example values, not placeholders', () => {
    const placeholders = contractExamples(doc).flatMap((example) => {
      const found: string[] = [];
      JSON.stringify(example.value, function (this: Record<string, unknown>, key, value: unknown) {
        if (value === 'string' || value === '' || (typeof value === 'string' && /^(foo|bar|test|example|xxx)$/i.test(value)))
          found.push(`${key}: ${JSON.stringify(value)}`);
        // Ids look like the server's (server/db/ids.ts): a type prefix, 8 characters of time, 14 random.
        const named = key === 'id' && typeof this.type === 'string' && STEP_TYPES.has(this.type);
        if (((key === 'id' && !named) || (key.endsWith('_id') && !NOT_SENDLINE_IDS.has(key))) && typeof value === 'string' && !SENDLINE_ID.test(value))
          found.push(`${key}: ${JSON.stringify(value)}`);
        return value;
      });
      return found.length ? [{ example: example.name, found }] : [];
    });
    expect(placeholders).toEqual([]);
  });

  it('describes every property, at any depth, unless its name says everything', () => {
    const properties = documentProperties(doc);
    expect(properties.length).toBeGreaterThan(1000);
    expect(properties.filter((p) => !p.described && !SELF_EVIDENT_PROPERTIES.has(p.name)).map((p) => p.where)).toEqual([]);
  });

  it('describes every parameter, unless its name says everything', () => {
    const parameters = documentParameters(doc);
    expect(parameters.length).toBeGreaterThan(100);
    expect(parameters.filter((p) => !p.described && !SELF_EVIDENT_PARAMETERS.has(p.name)).map((p) => p.where)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { loadContract } from '../../server/http/contract.ts';
import { contractExamples, missingReferenceParts, referenceOperations, schemaValidators } from './reference.ts';

const doc = loadContract();

describe('the reference', () => {
  it('gives every operation a summary, a description, request and response examples and an error example', () => {
    const gaps = referenceOperations(doc)
      .map((op) => ({ op: `${op.operation.operationId} (${op.method.toUpperCase()} ${op.path})`, missing: missingReferenceParts(op) }))
      .filter((gap) => gap.missing.length > 0);
    expect(gaps).toEqual([]);
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
      JSON.stringify(example.value, (key, value: unknown) => {
        if (value === 'string' || value === '' || (typeof value === 'string' && /^(foo|bar|test|example|xxx)$/i.test(value)))
          found.push(`${key}: ${JSON.stringify(value)}`);
        return value;
      });
      return found.length ? [{ example: example.name, found }] : [];
    });
    expect(placeholders).toEqual([]);
  });
});

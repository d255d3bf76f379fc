import { describe, expect, it } from 'vitest';
import { listOperations, loadContract } from '../../server/contract/document.ts';
import { loadScenarios } from './scenarios.ts';

describe('the contract scenarios', () => {
  it('call every operation of the contract at least once', () => {
    const ids = listOperations(loadContract()).map((op) => op.operationId);
    const called = new Set(loadScenarios().flatMap((s) => s.steps.map((step) => step.op)));
    expect(ids.filter((id) => !called.has(id))).toEqual([]);
    expect([...called].filter((id) => id && !ids.includes(id))).toEqual([]);
  });
});

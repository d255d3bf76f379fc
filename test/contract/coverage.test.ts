import { describe, expect, it } from 'vitest';
import { loadContract } from '../../server/http/contract.ts';
import { loadScenarios } from './scenarios.ts';

describe('the contract scenarios', () => {
  it('call every operation of the contract at least once', () => {
    const ids = Object.values(loadContract().paths).flatMap((item) => Object.values(item as Record<string, { operationId?: string }>).map((op) => op.operationId).filter((id): id is string => Boolean(id)));
    const called = new Set(loadScenarios().flatMap((s) => s.steps.map((step) => step.op)));
    expect(ids.filter((id) => !called.has(id))).toEqual([]);
    expect([...called].filter((id) => id && !ids.includes(id))).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { durationMs, graphErrors, type AutomationStep } from './graph.ts';

const manual = { type: 'manual' as const };

describe('a journey as a graph', () => {
  it('accepts a journey whose every way out names a step and whose loops wait', () => {
    const steps: AutomationStep[] = [
      { id: 'mail', type: 'send_email', template_id: 'tpl_1', from_email: 'a@b.example', next: 'wait' },
      { id: 'wait', type: 'wait', duration: 'P1D', next: 'opened' },
      { id: 'opened', type: 'condition', rules: { all: [] }, yes: null, no: 'wait' },
    ];
    expect(graphErrors(manual, steps, true)).toEqual([]);
  });

  it('points at each fault: an unknown step, a duplicate id, an unreachable step, a loop without a wait', () => {
    const errors = graphErrors(
      manual,
      [
        {
          id: 'a',
          type: 'split',
          branches: [
            { percent: 50, next: 'b' },
            { percent: 50, next: 'zzz' },
          ],
        },
        { id: 'b', type: 'update_contact', add_tags: ['x'], next: 'c' },
        { id: 'c', type: 'wait', duration: 'PT0S', next: 'b' },
        { id: 'b', type: 'exit' },
        { id: 'lonely', type: 'exit' },
      ],
      false,
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { pointer: '/steps/0/branches/1/next', detail: 'no step has the id zzz' },
        { pointer: '/steps/3/id', detail: 'another step has the id b' },
        { pointer: '/steps/4', detail: expect.stringContaining('reachable') },
        { pointer: '/steps/1', detail: expect.stringContaining('loop without a wait') },
      ]),
    );
  });

  it('refuses fields of another step type, missing required ones, and splits that do not sum to 100', () => {
    const errors = graphErrors(
      { type: 'list_joined' },
      [
        { id: 'a', type: 'wait', duration: 'P1D', until: { at: '09:00' }, next: 'b' },
        {
          id: 'b',
          type: 'split',
          branches: [
            { percent: 30, next: null },
            { percent: 30, next: null },
          ],
        },
      ],
      false,
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { pointer: '/trigger/list_id', detail: 'is required for a list_joined trigger' },
        { pointer: '/steps/0', detail: 'a wait takes either duration or until' },
        { pointer: '/steps/1/branches', detail: 'the percents must sum to 100' },
      ]),
    );
  });

  it('allows no steps in a draft, not on activation', () => {
    expect(graphErrors(manual, [], false)).toEqual([]);
    expect(graphErrors(manual, [], true)).toEqual([{ pointer: '/steps', detail: 'an automation needs at least one step to be activated' }]);
  });

  it('reads ISO 8601 durations up to a year', () => {
    expect(durationMs('PT2H30M')).toBe(9_000_000);
    expect(durationMs('P366D')).toBe(366 * 86_400_000);
    expect(durationMs('P2Y')).toBeNull();
    expect(durationMs('3 days')).toBeNull();
  });
});

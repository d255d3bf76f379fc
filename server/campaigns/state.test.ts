import { describe, expect, it } from 'vitest';
import { Problem } from '../contract/problem.ts';
import { CAMPAIGN_STATUSES, assertDeletable, assertEditable, transition, type CampaignAction, type CampaignStatus } from './state.ts';

const ALLOWED: Record<string, CampaignStatus> = {
  'draft schedule': 'scheduled',
  'scheduled schedule': 'scheduled',
  'scheduled unschedule': 'draft',
  'draft start': 'sending',
  'scheduled start': 'sending',
  'sending pause': 'paused',
  'paused resume': 'sending',
  'failed resume': 'sending',
  'draft cancel': 'cancelled',
  'scheduled cancel': 'cancelled',
  'sending cancel': 'cancelled',
  'paused cancel': 'cancelled',
  'sending complete': 'completed',
  'sending fail': 'failed',
};
const ACTIONS: CampaignAction[] = ['schedule', 'unschedule', 'start', 'pause', 'resume', 'cancel', 'complete', 'fail'];

describe('the campaign state machine', () => {
  for (const from of CAMPAIGN_STATUSES) {
    for (const action of ACTIONS) {
      const expected = ALLOWED[`${from} ${action}`];
      it(`${from} → ${action} → ${expected ?? '409'}`, () => {
        if (expected) {
          expect(transition(from, action)).toBe(expected);
        } else {
          try {
            transition(from, action);
            expect.unreachable();
          } catch (error) {
            expect(error).toBeInstanceOf(Problem);
            expect((error as Problem).status).toBe(409);
            expect((error as Problem).code).toBe('invalid_state_transition');
            expect((error as Problem).extra.current_status).toBe(from);
          }
        }
      });
    }
  }

  it('edits only drafts and scheduled campaigns', () => {
    for (const status of CAMPAIGN_STATUSES) {
      const editable = status === 'draft' || status === 'scheduled';
      if (editable) expect(() => assertEditable(status)).not.toThrow();
      else expect(() => assertEditable(status)).toThrow(Problem);
    }
  });

  it('deletes anything but a sending campaign', () => {
    for (const status of CAMPAIGN_STATUSES) {
      if (status === 'sending') expect(() => assertDeletable(status)).toThrow(Problem);
      else expect(() => assertDeletable(status)).not.toThrow();
    }
  });
});

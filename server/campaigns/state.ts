import type { components } from '../../generated/openapi.d.ts';
import { enumValues } from '../contract/enums.ts';
import { Problem } from '../contract/problem.ts';

export type CampaignStatus = components['schemas']['CampaignStatus'];
export const CAMPAIGN_STATUSES = enumValues<CampaignStatus>()(['draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled', 'failed']);

export type CampaignAction = 'schedule' | 'unschedule' | 'start' | 'pause' | 'resume' | 'cancel' | 'complete' | 'fail';

/** Every allowed move, and nothing else: `from → action → to`. */
const TRANSITIONS: Record<CampaignAction, Partial<Record<CampaignStatus, CampaignStatus>>> = {
  schedule: { draft: 'scheduled', scheduled: 'scheduled' },
  unschedule: { scheduled: 'draft' },
  start: { draft: 'sending', scheduled: 'sending' },
  pause: { sending: 'paused' },
  resume: { paused: 'sending', failed: 'sending' },
  cancel: { draft: 'cancelled', scheduled: 'cancelled', sending: 'cancelled', paused: 'cancelled' },
  complete: { sending: 'completed' },
  fail: { sending: 'failed' },
};

/** The status after `action`, or a 409 `invalid_state_transition` naming the current status. */
export function transition(from: CampaignStatus, action: CampaignAction): CampaignStatus {
  const to = TRANSITIONS[action][from];
  if (!to) {
    throw new Problem(409, 'invalid_state_transition', `A ${from} campaign cannot ${action}.`, { extra: { current_status: from } });
  }
  return to;
}

/** Only drafts and scheduled campaigns change content or audience. */
const isEditable = (status: CampaignStatus) => status === 'draft' || status === 'scheduled';

export function assertEditable(status: CampaignStatus): void {
  if (!isEditable(status)) {
    throw new Problem(409, 'invalid_state_transition', `A ${status} campaign cannot be edited.`, { extra: { current_status: status } });
  }
}

export function assertDeletable(status: CampaignStatus): void {
  if (status === 'sending') {
    throw new Problem(409, 'invalid_state_transition', 'A sending campaign cannot be deleted; pause or cancel it first.', {
      extra: { current_status: status },
    });
  }
}

import type { components } from '../../generated/openapi.d.ts';
import type { AutomationRecord, EnrollmentRecord, PathRecord } from './store.ts';

type Schemas = components['schemas'];

export const automationJson = (a: AutomationRecord): Schemas['Automation'] => ({
  id: a.id,
  name: a.name,
  status: a.status,
  trigger: a.trigger,
  steps: a.steps,
  settings: { reentry: 'never', goal: null, topic_id: null, send_window: null, ...a.settings },
  version: a.version,
  created_at: a.created_at.toISOString(),
  updated_at: a.updated_at.toISOString(),
  activated_at: a.activated_at?.toISOString() ?? null,
});

/** An enrolment with its path, picked from `paths` (any enrolments' entries, in order). */
export function enrollmentJson(e: EnrollmentRecord, paths: readonly PathRecord[]): Schemas['Enrollment'] {
  return {
    id: e.id,
    automation_id: e.automation_id,
    contact_id: e.contact_id,
    version: e.version,
    status: e.status,
    step_id: e.step_id,
    next_step_at: e.due_at?.toISOString() ?? null,
    waiting_for: e.waiting_for,
    exit_reason: e.exit_reason,
    created_at: e.created_at.toISOString(),
    finished_at: e.finished_at?.toISOString() ?? null,
    path: paths
      .filter((p) => p.enrollment_id === e.id)
      .map((p) => {
        const outcome = p.outcome as { branch?: string | null; detail?: string | null };
        return {
          step_id: p.step_id,
          type: p.step_type as Schemas['AutomationStepType'],
          entered_at: p.entered_at.toISOString(),
          message_id: p.message_id,
          branch: outcome.branch ?? null,
          detail: outcome.detail ?? null,
        };
      }),
  };
}

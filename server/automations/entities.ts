import { defineEntity, p } from '@mikro-orm/core';
import type { components } from '../../generated/openapi.d.ts';

type Schemas = components['schemas'];
export type AutomationStatus = Schemas['AutomationStatus'];
export type EnrollmentStatus = Schemas['EnrollmentStatus'];
export const AUTOMATION_STATUSES = ['draft', 'active', 'paused', 'archived'] as const satisfies readonly AutomationStatus[];
export const ENROLLMENT_STATUSES = ['active', 'waiting', 'completed', 'exited', 'converted', 'failed'] as const satisfies readonly EnrollmentStatus[];

/** A journey as last saved; written by `store.ts`. */
export const Automation = defineEntity({
  name: 'Automation',
  tableName: 'automations',
  properties: {
    accountId: p.text().primary(),
    id: p.text().primary(),
    name: p.text(),
    status: p.enum([...AUTOMATION_STATUSES]),
    trigger: p.json<Schemas['AutomationTrigger']>(),
    steps: p.json<Schemas['AutomationStep'][]>(),
    settings: p.json<Schemas['AutomationSettings']>(),
    /** The version contacts enrol on now; 0 until first activated. */
    version: p.integer().default(0),
    /** Signs its `webhook` steps' posts (Standard Webhooks), sealed with the key ring. */
    webhookSecretSealed: p.text().hidden(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p.datetime(3).defaultRaw('now()'),
    activatedAt: p.datetime(3).nullable(),
  },
});

/** The steps contacts walk, frozen at each activation or change of an active automation. */
export const AutomationVersion = defineEntity({
  name: 'AutomationVersion',
  tableName: 'automation_versions',
  properties: {
    accountId: p.text().primary(),
    automationId: p.text().primary(),
    version: p.integer().primary(),
    trigger: p.json<Schemas['AutomationTrigger']>(),
    steps: p.json<Schemas['AutomationStep'][]>(),
    settings: p.json<Schemas['AutomationSettings']>(),
    createdAt: p.datetime(3).defaultRaw('now()'),
  },
});

/** A contact's walk through one version of an automation. */
export const AutomationEnrollment = defineEntity({
  name: 'AutomationEnrollment',
  tableName: 'automation_enrollments',
  properties: {
    accountId: p.text().primary(),
    id: p.text().primary(),
    automationId: p.text(),
    version: p.integer(),
    contactId: p.text(),
    status: p.enum([...ENROLLMENT_STATUSES]),
    /** The step it is at (null once finished). */
    stepId: p.text().nullable(),
    /** When its step runs (again); null while it waits for an event only, and once finished. */
    dueAt: p.datetime(3).nullable(),
    /** The event a `wait_for_event` step waits for. */
    waitingFor: p.text().nullable(),
    /** The trigger's event, split choices, the template versions taken at enrolment. */
    context: p.json<Record<string, unknown>>().default('{}'),
    /** Steps entered so far: a bound on loops. */
    visits: p.integer().default(0),
    exitReason: p.text().nullable(),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p.datetime(3).defaultRaw('now()'),
    finishedAt: p.datetime(3).nullable(),
  },
});

/** Each step an enrolment entered, in order, with what came of it. */
export const AutomationPathStep = defineEntity({
  name: 'AutomationPathStep',
  tableName: 'automation_path',
  properties: {
    accountId: p.text().primary(),
    enrollmentId: p.text().primary(),
    seq: p.integer().primary(),
    automationId: p.text(),
    stepId: p.text(),
    stepType: p.text(),
    enteredAt: p.datetime(3).defaultRaw('now()'),
    outcome: p.json<Record<string, unknown>>().default('{}'),
    messageId: p.text().nullable(),
  },
});

/** Per automation and contact: its live enrolment (re-entry rules), a date trigger's last occurrence, segment membership. */
export const AutomationContact = defineEntity({
  name: 'AutomationContact',
  tableName: 'automation_contacts',
  properties: {
    accountId: p.text().primary(),
    automationId: p.text().primary(),
    contactId: p.text().primary(),
    liveEnrollmentId: p.text().nullable(),
    entries: p.integer().default(0),
    lastOccurrence: p.string().columnType('date').nullable(),
    inSegment: p.boolean().default(false),
  },
});

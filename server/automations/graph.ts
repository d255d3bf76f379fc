import { Duration } from 'luxon';
import type { components } from '../../generated/openapi.d.ts';
import type { FieldError } from '../contract/problem.ts';

type Schemas = components['schemas'];
export type AutomationStep = Schemas['AutomationStep'];
export type AutomationTrigger = Schemas['AutomationTrigger'];
export type StepType = Schemas['AutomationStepType'];

/** The longest `wait` or `timeout`: a journey that waits longer is a mistake, not a plan. */
const MAX_WAIT_DAYS = 366;

/** Each step type's own fields; any other field (but `id` and `type`) is refused on it. */
const FIELDS_OF: Record<StepType, readonly (keyof AutomationStep)[]> = {
  send_email: ['next', 'template_id', 'from_email', 'from_name', 'subject'],
  wait: ['next', 'duration', 'until'],
  wait_for_event: ['next', 'name', 'timeout', 'timeout_next'],
  condition: ['rules', 'yes', 'no'],
  split: ['branches'],
  update_contact: ['next', 'add_tags', 'remove_tags', 'add_list_ids', 'remove_list_ids', 'set_fields'],
  webhook: ['next', 'url', 'payload'],
  exit: [],
};

const REQUIRED_OF: Partial<Record<StepType, readonly (keyof AutomationStep)[]>> = {
  send_email: ['template_id', 'from_email'],
  wait_for_event: ['name', 'timeout'],
  condition: ['rules'],
  split: ['branches'],
  webhook: ['url'],
};

const TRIGGER_FIELDS: Record<AutomationTrigger['type'], readonly (keyof AutomationTrigger)[]> = {
  list_joined: ['list_id'],
  tag_added: ['tag'],
  contact_created: [],
  event: ['name'],
  segment_entered: ['segment_id'],
  date: ['field', 'offset_days', 'at'],
  manual: [],
};

const TRIGGER_REQUIRED: Partial<Record<AutomationTrigger['type'], keyof AutomationTrigger>> = {
  list_joined: 'list_id',
  tag_added: 'tag',
  event: 'name',
  segment_entered: 'segment_id',
  date: 'field',
};

/** An ISO 8601 duration in milliseconds, or null when it is not one (or is longer than a year). */
export function durationMs(text: string): number | null {
  const duration = Duration.fromISO(text);
  if (!duration.isValid) return null;
  const ms = duration.toMillis();
  if (ms < 0 || ms > MAX_WAIT_DAYS * 86_400_000) return null;
  return ms;
}

/** The pointers of a step's ways out and the steps they name (null: the journey ends). */
export function exitsOf(step: AutomationStep): { field: string; target: string | null }[] {
  switch (step.type) {
    case 'condition':
      return [
        { field: 'yes', target: step.yes ?? null },
        { field: 'no', target: step.no ?? null },
      ];
    case 'split':
      return (step.branches ?? []).map((b, i) => ({ field: `branches/${i}/next`, target: b.next }));
    case 'wait_for_event':
      return [
        { field: 'next', target: step.next ?? null },
        { field: 'timeout_next', target: step.timeout_next ?? null },
      ];
    case 'exit':
      return [];
    default:
      return [{ field: 'next', target: step.next ?? null }];
  }
}

/** Whether a loop through this step takes time: a wait of more than nothing, or a wait for an event. */
function pauses(step: AutomationStep): boolean {
  if (step.type === 'wait_for_event') return true;
  if (step.type !== 'wait') return false;
  if (step.until) return true;
  return step.duration !== undefined && (durationMs(step.duration) ?? 0) > 0;
}

function checkTrigger(trigger: AutomationTrigger, errors: FieldError[]): void {
  const own = TRIGGER_FIELDS[trigger.type];
  for (const key of Object.keys(trigger) as (keyof AutomationTrigger)[]) {
    if (key !== 'type' && !own.includes(key)) errors.push({ pointer: `/trigger/${key}`, detail: `is not a field of a ${trigger.type} trigger` });
  }
  const required = TRIGGER_REQUIRED[trigger.type];
  if (required && trigger[required] === undefined) errors.push({ pointer: `/trigger/${required}`, detail: `is required for a ${trigger.type} trigger` });
}

function checkStep(step: AutomationStep, at: string, errors: FieldError[]): void {
  const own = FIELDS_OF[step.type];
  for (const key of Object.keys(step) as (keyof AutomationStep)[]) {
    if (key !== 'id' && key !== 'type' && !own.includes(key)) errors.push({ pointer: `${at}/${key}`, detail: `is not a field of a ${step.type} step` });
  }
  for (const key of REQUIRED_OF[step.type] ?? [])
    if (step[key] === undefined) errors.push({ pointer: `${at}/${key}`, detail: `is required for a ${step.type} step` });
  switch (step.type) {
    case 'wait':
      if ((step.duration === undefined) === (step.until === undefined)) errors.push({ pointer: at, detail: 'a wait takes either duration or until' });
      else if (step.duration !== undefined && durationMs(step.duration) === null)
        errors.push({ pointer: `${at}/duration`, detail: `must be an ISO 8601 duration such as P3D or PT2H, at most ${MAX_WAIT_DAYS} days` });
      break;
    case 'wait_for_event':
      if (step.timeout !== undefined && !durationMs(step.timeout))
        errors.push({ pointer: `${at}/timeout`, detail: `must be an ISO 8601 duration such as P3D, more than nothing and at most ${MAX_WAIT_DAYS} days` });
      break;
    case 'split':
      if (step.branches && step.branches.reduce((sum, b) => sum + b.percent, 0) !== 100)
        errors.push({ pointer: `${at}/branches`, detail: 'the percents must sum to 100' });
      break;
    case 'update_contact':
      if (!own.some((key) => key !== 'next' && step[key] !== undefined))
        errors.push({ pointer: at, detail: 'an update_contact step needs add_tags, remove_tags, add_list_ids, remove_list_ids or set_fields' });
      break;
  }
}

/**
 * What is wrong with a journey as a graph, each fault at its pointer: fields that do not belong
 * to a step's type, missing ones, duplicate ids, a way out to no step, a step no way reaches
 * from the first, a loop that never waits. `activating`: a journey without steps is refused too.
 * References to the account's data (templates, lists, segments) are the service's to check.
 */
export function graphErrors(trigger: AutomationTrigger, steps: AutomationStep[], activating: boolean): FieldError[] {
  const errors: FieldError[] = [];
  checkTrigger(trigger, errors);
  if (!steps.length) {
    if (activating) errors.push({ pointer: '/steps', detail: 'an automation needs at least one step to be activated' });
    return errors;
  }
  const index = new Map<string, number>();
  for (const [i, step] of steps.entries()) {
    if (index.has(step.id)) errors.push({ pointer: `/steps/${i}/id`, detail: `another step has the id ${step.id}` });
    else index.set(step.id, i);
    checkStep(step, `/steps/${i}`, errors);
  }
  const successors = steps.map((step, i) =>
    exitsOf(step).flatMap(({ field, target }) => {
      if (target === null) return [];
      const to = index.get(target);
      if (to === undefined) {
        errors.push({ pointer: `/steps/${i}/${field}`, detail: `no step has the id ${target}` });
        return [];
      }
      return [to];
    }),
  );
  const reached = new Set([0]);
  for (const queue = [0]; queue.length;) for (const to of successors[queue.pop()!]) if (!reached.has(to) && reached.add(to)) queue.push(to);
  for (const i of steps.keys())
    if (!reached.has(i)) errors.push({ pointer: `/steps/${i}`, detail: 'no step leads here: every step must be reachable from the first' });
  for (const loop of loopsOf(successors)) {
    if (!loop.some((i) => pauses(steps[i])))
      errors.push({ pointer: `/steps/${Math.min(...loop)}`, detail: 'this step is on a loop without a wait: put a wait or wait_for_event on it' });
  }
  return errors;
}

/** The graph's loops: its strongly connected components with a cycle (Tarjan's algorithm, iteratively). */
function loopsOf(successors: number[][]): number[][] {
  const order = new Array<number>(successors.length).fill(-1);
  const low = new Array<number>(successors.length).fill(0);
  const onStack = new Set<number>();
  const stack: number[] = [];
  const loops: number[][] = [];
  let counter = 0;
  for (const root of successors.keys()) {
    if (order[root] !== -1) continue;
    const work: { node: number; next: number }[] = [{ node: root, next: 0 }];
    order[root] = low[root] = counter++;
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work.at(-1)!;
      const edges = successors[frame.node];
      if (frame.next < edges.length) {
        const to = edges[frame.next++];
        if (order[to] === -1) {
          order[to] = low[to] = counter++;
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low[frame.node] = Math.min(low[frame.node], order[to]);
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) low[parent.node] = Math.min(low[parent.node], low[frame.node]);
      if (low[frame.node] !== order[frame.node]) continue;
      const component: number[] = [];
      let member: number;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      if (component.length > 1 || successors[frame.node].includes(frame.node)) loops.push(component);
    }
  }
  return loops;
}

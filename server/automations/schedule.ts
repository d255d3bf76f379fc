import { DateTime, IANAZone } from 'luxon';
import type { components } from '../../generated/openapi.d.ts';
import { durationMs } from './graph.ts';

type Schemas = components['schemas'];

const WEEKDAYS: Schemas['Weekday'][] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** The zone a journey reads a contact's local times in: its own or its account's (`JourneyContact.timezone`), UTC when unknown. */
export function zoneOf(contact: { timezone: string | null }): string {
  const given = contact.timezone;
  return given !== null && IANAZone.isValidZone(given) ? given : 'UTC';
}

const hoursAndMinutes = (at: string) => {
  const [hour, minute] = at.split(':').map(Number);
  return { hour, minute };
};

/** When a `wait` step that starts at `now` ends. */
export function waitEnd(step: Pick<Schemas['AutomationStep'], 'duration' | 'until'>, now: Date, zone: string): Date {
  if (step.duration !== undefined) return new Date(now.getTime() + (durationMs(step.duration) ?? 0));
  const until = step.until!;
  const local = DateTime.fromJSDate(now, { zone });
  let next = local.set({ ...hoursAndMinutes(until.at), second: 0, millisecond: 0 });
  if (next <= local) next = next.plus({ days: 1 });
  if (until.weekday) {
    const wanted = WEEKDAYS.indexOf(until.weekday) + 1;
    while (next.weekday !== wanted) next = next.plus({ days: 1 });
  }
  return next.toJSDate();
}

/**
 * When an email due at `now` may go out under a send window: null when now is inside it, else the
 * window's next opening in the contact's zone. `to` below `from` spans midnight.
 */
export function windowOpening(window: Schemas['AutomationSendWindow'] | null | undefined, now: Date, zone: string): Date | null {
  if (!window || window.from === window.to % 24) return null;
  const local = DateTime.fromJSDate(now, { zone });
  const inside = window.from < window.to ? local.hour >= window.from && local.hour < window.to : local.hour >= window.from || local.hour < window.to;
  if (inside) return null;
  let opening = local.set({ hour: window.from, minute: 0, second: 0, millisecond: 0 });
  if (opening <= local) opening = opening.plus({ days: 1 });
  return opening.toJSDate();
}

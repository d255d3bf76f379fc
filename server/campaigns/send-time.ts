import { DateTime } from 'luxon';
import type { components } from '../../generated/openapi.d.ts';
import { validationFailed } from '../contract/problem.ts';

export type CampaignSendTime = components['schemas']['CampaignSendTime'];
type ScheduleRequest = components['schemas']['CampaignScheduleRequest'];

/** The reason a skipped late contact's message is cancelled with. */
export const LOCAL_TIME_PASSED = 'local time passed';

/** The zones furthest ahead of and behind UTC: a wall-clock time comes first at UTC+14, last at UTC−12. */
const FIRST_ZONE = 'UTC+14';
const LAST_ZONE = 'UTC-12';

/** When a scheduled campaign starts, and the wall-clock time it was scheduled for (null: an instant). */
export interface SchedulePlan {
  startAt: Date;
  sendTime: CampaignSendTime | null;
}

/** `local_time` in `zone` as an instant; a time in a daylight-saving gap moves forward by the gap, as PostgreSQL reads it. */
function localInstant(localTime: string, zone: string): Date {
  return DateTime.fromISO(localTime, { zone }).toJSDate();
}

/**
 * What `POST /campaigns/{id}/schedule` asks for, checked against `now`: an instant in the future,
 * or a wall-clock time in the account's zone (in the future) or in each contact's (not passed in
 * every zone; the campaign starts when the first zone reaches it).
 */
export function schedulePlan(request: ScheduleRequest, accountZone: string, now: Date): SchedulePlan {
  const { scheduled_at, local_time, by_contact_timezone, late_policy } = request;
  if ((scheduled_at == null) === (local_time == null)) throw validationFailed([{ pointer: '/scheduled_at', detail: 'give either scheduled_at or local_time' }]);
  if (local_time == null) {
    if (by_contact_timezone != null) throw validationFailed([{ pointer: '/by_contact_timezone', detail: 'needs local_time' }]);
    if (late_policy != null) throw validationFailed([{ pointer: '/late_policy', detail: 'needs local_time with by_contact_timezone' }]);
    const startAt = new Date(scheduled_at!);
    if (startAt <= now) throw validationFailed([{ pointer: '/scheduled_at', detail: 'must be in the future' }]);
    return { startAt, sendTime: null };
  }
  if (!DateTime.fromISO(local_time, { zone: 'UTC' }).isValid)
    throw validationFailed([{ pointer: '/local_time', detail: 'is not a date and time of the calendar' }]);
  if (!by_contact_timezone) {
    if (late_policy != null) throw validationFailed([{ pointer: '/late_policy', detail: 'needs by_contact_timezone' }]);
    const startAt = localInstant(local_time, accountZone);
    if (startAt <= now) throw validationFailed([{ pointer: '/local_time', detail: `has passed in the account's time zone (${accountZone})` }]);
    return { startAt, sendTime: { local_time, by_contact_timezone: false, late_policy: 'send' } };
  }
  if (localInstant(local_time, LAST_ZONE) <= now) throw validationFailed([{ pointer: '/local_time', detail: 'has passed in every time zone' }]);
  const first = localInstant(local_time, FIRST_ZONE);
  return {
    startAt: first > now ? first : now,
    sendTime: { local_time, by_contact_timezone: true, late_policy: late_policy ?? 'send' },
  };
}

import { describe, expect, it } from 'vitest';
import { waitEnd, windowOpening, zoneOf } from './schedule.ts';

const at = (iso: string) => new Date(iso);

describe('journey schedules', () => {
  it("reads the contact's zone, UTC when it names none", () => {
    expect(zoneOf({ timezone: 'Europe/Paris' })).toBe('Europe/Paris');
    expect(zoneOf({ timezone: 'Mars/Olympus' })).toBe('UTC');
    expect(zoneOf({ timezone: null })).toBe('UTC');
  });

  it('ends a duration wait that long after it starts, and PT0S at once', () => {
    expect(waitEnd({ duration: 'P3D' }, at('2026-03-01T10:00:00Z'), 'UTC')).toEqual(at('2026-03-04T10:00:00Z'));
    expect(waitEnd({ duration: 'PT0S' }, at('2026-03-01T10:00:00Z'), 'UTC')).toEqual(at('2026-03-01T10:00:00Z'));
  });

  it('waits until a local time in three zones on one fixed clock', () => {
    const now = at('2026-06-10T12:00:00Z');
    expect(waitEnd({ until: { at: '09:00' } }, now, 'Asia/Tokyo')).toEqual(at('2026-06-11T00:00:00Z'));
    expect(waitEnd({ until: { at: '09:00' } }, now, 'America/New_York')).toEqual(at('2026-06-10T13:00:00Z'));
    expect(waitEnd({ until: { at: '13:30' } }, now, 'Europe/London')).toEqual(at('2026-06-10T12:30:00Z'));
  });

  it('waits until the next such weekday, today included while its time is ahead', () => {
    // 2026-06-10 is a Wednesday.
    expect(waitEnd({ until: { weekday: 'wednesday', at: '18:00' } }, at('2026-06-10T12:00:00Z'), 'UTC')).toEqual(at('2026-06-10T18:00:00Z'));
    expect(waitEnd({ until: { weekday: 'wednesday', at: '09:00' } }, at('2026-06-10T12:00:00Z'), 'UTC')).toEqual(at('2026-06-17T09:00:00Z'));
    expect(waitEnd({ until: { weekday: 'monday', at: '09:00' } }, at('2026-06-10T12:00:00Z'), 'UTC')).toEqual(at('2026-06-15T09:00:00Z'));
  });

  it('keeps the local time across a change of daylight saving time', () => {
    // Europe/Paris moves to summer time on 2026-03-29 at 02:00 local.
    expect(waitEnd({ until: { at: '09:00' } }, at('2026-03-28T12:00:00Z'), 'Europe/Paris')).toEqual(at('2026-03-29T07:00:00Z'));
    expect(waitEnd({ until: { at: '09:00' } }, at('2026-03-27T12:00:00Z'), 'Europe/Paris')).toEqual(at('2026-03-28T08:00:00Z'));
  });

  it("holds an email outside the send window until the window's next opening in the contact's zone", () => {
    const window = { from: 9, to: 17 };
    expect(windowOpening(window, at('2026-06-10T12:00:00Z'), 'Europe/London')).toBeNull();
    expect(windowOpening(window, at('2026-06-10T20:00:00Z'), 'Europe/London')).toEqual(at('2026-06-11T08:00:00Z'));
    expect(windowOpening(window, at('2026-06-10T03:00:00Z'), 'America/Los_Angeles')).toEqual(at('2026-06-10T16:00:00Z'));
    expect(windowOpening({ from: 22, to: 6 }, at('2026-06-10T23:30:00Z'), 'UTC')).toBeNull();
    expect(windowOpening({ from: 22, to: 6 }, at('2026-06-10T12:00:00Z'), 'UTC')).toEqual(at('2026-06-10T22:00:00Z'));
    expect(windowOpening(null, at('2026-06-10T03:00:00Z'), 'UTC')).toBeNull();
  });
});

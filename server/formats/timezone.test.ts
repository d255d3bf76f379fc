import { describe, expect, it } from 'vitest';
import { timeZoneName } from './timezone.ts';

describe('timeZoneName', () => {
  it('keeps IANA names, in their canonical case', () => {
    expect(timeZoneName('Europe/Paris')).toBe('Europe/Paris');
    expect(timeZoneName('europe/paris')).toBe('Europe/Paris');
    expect(timeZoneName('utc')).toBe('UTC');
    expect(timeZoneName('America/Argentina/Buenos_Aires')).toBe('America/Argentina/Buenos_Aires');
    expect(timeZoneName('Etc/GMT+5')).toBe('Etc/GMT+5');
  });

  it('keeps a current name that ICU knows by an older one', () => {
    expect(timeZoneName('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(timeZoneName('Europe/Kyiv')).toBe('Europe/Kyiv');
  });

  it('refuses offsets, unknown zones and junk', () => {
    for (const bad of ['+01:00', '-05:00', 'Nope/Zone', '', 'Europe/Paris; drop table', 'x'.repeat(65), '../etc/passwd']) expect(timeZoneName(bad)).toBeNull();
  });
});

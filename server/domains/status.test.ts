import { describe, expect, it } from 'vitest';
import { recordKey, wantedRecords, type RecordChecks } from './records.ts';
import { nextStatus } from './service.ts';

const records = wantedRecords(
  'mail.example.com',
  [
    { selector: 'sl1', publicKey: 'AAAA' },
    { selector: 'sl2', publicKey: 'BBBB' },
  ],
  { bounceDomain: 'bounces.sendline.example', trackingHost: 'sendline.example' },
);
const checks = (statuses: Partial<Record<string, string>>): RecordChecks =>
  Object.fromEntries(records.map((r, i) => [recordKey(r), { status: statuses[i === 1 ? 'next' : r.purpose] ?? 'verified', found: null }]));

describe('nextStatus', () => {
  it('verifies a domain once its current key and return path are published, whatever the advice records say', () => {
    expect(nextStatus('pending', records, checks({ spf: 'missing', dmarc: 'mismatch', tracking: 'missing', next: 'missing' }))).toBe('verified');
    expect(nextStatus('pending', records, checks({ return_path: 'missing' }))).toBe('pending');
    expect(nextStatus('pending', records, checks({ dkim: 'mismatch' }))).toBe('pending');
  });

  it('fails a verified domain whose DKIM record is gone or replaced, not one whose lookup failed', () => {
    expect(nextStatus('verified', records, checks({ dkim: 'missing' }))).toBe('failed');
    expect(nextStatus('verified', records, checks({ dkim: 'mismatch' }))).toBe('failed');
    expect(nextStatus('verified', records, checks({ dkim: 'lookup_failed' }))).toBe('verified');
    expect(nextStatus('verified', records, checks({ return_path: 'lookup_failed', dkim: 'missing' }))).toBe('verified');
    expect(nextStatus('verified', records, checks({ return_path: 'missing' }))).toBe('verified');
  });

  it('verifies a failed domain again once its records are back', () => {
    expect(nextStatus('failed', records, checks({}))).toBe('verified');
    expect(nextStatus('failed', records, checks({ dkim: 'missing' }))).toBe('failed');
  });
});

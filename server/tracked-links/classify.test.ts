import { describe, expect, it } from 'vitest';
import { isMachineOpen, storedIp } from './classify.ts';

const human = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko)';

describe('isMachineOpen', () => {
  const sent = Date.parse('2026-11-21T10:00:00Z');

  it('flags privacy proxies, scanners and missing agents', () => {
    const later = Date.parse('2026-11-21T11:00:00Z');
    expect(isMachineOpen('Mozilla/5.0', later, sent, 2)).toBe(true);
    expect(isMachineOpen(null, later, sent, 2)).toBe(true);
    expect(isMachineOpen('Mozilla/5.0 (compatible; Barracuda Sentinel)', later, sent, 2)).toBe(true);
    expect(isMachineOpen('python-requests/2.31', later, sent, 2)).toBe(true);
  });

  it('flags opens within seconds of delivery, and not later ones', () => {
    expect(isMachineOpen(human, sent + 1500, sent, 2)).toBe(true);
    expect(isMachineOpen(human, sent + 2500, sent, 2)).toBe(false);
    expect(isMachineOpen('Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)', sent + 60_000, sent, 2)).toBe(false);
  });
});

describe('storedIp', () => {
  it('anonymises IPv4, IPv4-mapped and IPv6 addresses', () => {
    expect(storedIp('203.0.113.77', 'anonymized')).toBe('203.0.113.0');
    expect(storedIp('::ffff:203.0.113.77', 'anonymized')).toBe('203.0.113.0');
    expect(storedIp('2001:db8:abcd:12::1', 'anonymized')).toBe('2001:db8:abcd::');
    expect(storedIp('2001:db8::1', 'anonymized')).toBe('2001:db8:0::');
  });

  it('keeps or drops the address when configured so', () => {
    expect(storedIp('203.0.113.77', 'full')).toBe('203.0.113.77');
    expect(storedIp('203.0.113.77', 'none')).toBeNull();
    expect(storedIp(undefined, 'full')).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { compileAllowList, ipAllowed, parseCidr } from './cidr.ts';

describe('CIDR allow-lists', () => {
  it('parses IPv4 and IPv6 blocks and bare addresses', () => {
    expect(parseCidr('203.0.113.0/24')).toEqual({ address: '203.0.113.0', prefix: 24, family: 'ipv4' });
    expect(parseCidr('2001:db8::/32')).toEqual({ address: '2001:db8::', prefix: 32, family: 'ipv6' });
    expect(parseCidr('198.51.100.7')).toEqual({ address: '198.51.100.7', prefix: 32, family: 'ipv4' });
  });

  it.each(['300.0.0.1/8', '10.0.0.0/33', '::1/129', '10.0.0.0/', '10.0.0.0/8/1', 'example.com', '10.0.0.0/-1', ''])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeNull();
  });

  it('matches addresses, IPv4-mapped IPv6 included', () => {
    const list = compileAllowList(['203.0.113.0/24', '2001:db8::/32']);
    expect(ipAllowed(list, '203.0.113.77')).toBe(true);
    expect(ipAllowed(list, '::ffff:203.0.113.77')).toBe(true);
    expect(ipAllowed(list, '2001:db8:1::5')).toBe(true);
    expect(ipAllowed(list, '203.0.114.1')).toBe(false);
    expect(ipAllowed(list, '2001:db9::1')).toBe(false);
    expect(ipAllowed(list, 'garbage')).toBe(false);
  });

  it('allows everything when the list is empty', () => {
    expect(ipAllowed(compileAllowList([]), '192.0.2.1')).toBe(true);
  });
});

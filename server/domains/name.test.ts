import { describe, expect, it } from 'vitest';
import { domainAndParents, domainName } from './name.ts';

describe('domainName', () => {
  it('stores names in lower case without a trailing dot', () => {
    expect(domainName(' Mail.Example.COM. ')).toBe('mail.example.com');
    expect(domainName('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
  });

  it('refuses what is not a host name of two labels or more', () => {
    for (const name of [
      'example',
      '10.0.0.1',
      'a_b.example',
      '-a.example',
      'a-.example',
      'a..example',
      '.example',
      `${'a'.repeat(64)}.example`,
      'a.1',
      'bücher.example',
      `${'a.'.repeat(127)}example`,
    ]) {
      expect(domainName(name), name).toBeNull();
    }
  });
});

describe('domainAndParents', () => {
  it('lists the address domain and its parents, nearest first, down to two labels', () => {
    expect(domainAndParents('news@a.b.Example.com')).toEqual(['a.b.example.com', 'b.example.com', 'example.com']);
    expect(domainAndParents('x@example.com')).toEqual(['example.com']);
    expect(domainAndParents('x@localhost')).toEqual([]);
  });
});

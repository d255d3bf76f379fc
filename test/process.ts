import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Tests and benchmarks sign up and probe from 127.0.0.1 on one database, more than the per-address
 * limits allow: servers start without them unless a test of those limits sets them.
 */
export const UNTHROTTLED = { SIGNUPS_PER_HOUR: '10000000', INVALID_API_KEYS_PER_MINUTE: '10000000' };

export interface ServerProcess {
  proc: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

interface SpawnOptions {
  keepOutput?: boolean;
  timeoutMs?: number;
  /** What starts it: `bin/sendline` unless a test starts it as a user does, with `npm start`. */
  command?: [string, ...string[]];
  /** In a process group of its own, as a terminal starts a command: `kill(-pid)` signals all of it. */
  detached?: boolean;
}

/**
 * Runs the server as `npm start` does (`bin/sendline`, with its memory settings) as its own
 * process, on the Node that runs this one, and waits until it listens.
 */
export function spawnServer(env: Record<string, string>, options: SpawnOptions = {}): Promise<ServerProcess> {
  const { keepOutput = true, timeoutMs = 60_000, command = ['bin/sendline'], detached = false } = options;
  let started = false;
  const proc = spawn(command[0], command.slice(1), {
    detached,
    cwd: ROOT,
    env: {
      PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`,
      TMPDIR: tmpdir(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      ...UNTHROTTLED,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    proc.on('exit', (code, signal) => {
      // A process ended by a signal has no exit code: say which, for the test that expected one.
      if (signal) output += `\n[ended by ${signal}]`;
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      // A benchmark's request log would grow without bound: kept only until the server listens.
      if (started && !keepOutput) return;
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"Sendline is listening"/.exec(output);
      if (match) {
        started = true;
        clearTimeout(timer);
        resolve({ proc, url: match[1], output: () => output, exited });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

/** `bin/sendline …` (a command such as `migrate` or `backup`) as a user runs it: its exit code and what it printed. */
export async function runSendline(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const options = { cwd: ROOT, env: { PATH: `${path.dirname(process.execPath)}:${process.env.PATH}`, TMPDIR: tmpdir(), ...env } };
  try {
    const { stdout, stderr } = await promisify(execFile)('bin/sendline', args, options);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

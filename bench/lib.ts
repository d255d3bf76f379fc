import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A temporary folder (database, uploads) removed when the benchmark exits: runs leave gigabytes. */
export function scratchDir(name: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), `sendline-bench-${name}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** Loads one URL from this process with autocannon. */
export async function load(url: string, headers: Record<string, string>, seconds: number, connections = 32): Promise<LoadResult> {
  const result = await autocannon({ url, headers, duration: seconds, connections });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Runs a script that prints `{"port": N}` once it listens. */
export function spawnListening(args: string[]): Promise<{ port: number; pid: number; stop: () => void }> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /\{"port":(\d+)\}/.exec(out);
      if (match) resolve({ port: Number(match[1]), pid: proc.pid!, stop: () => proc.kill('SIGTERM') });
    });
    proc.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/**
 * A pool for a benchmark's own queries. `end()` does not wait for its connections to close, so
 * the database stopped right after may still tell one it is shutting down (57P01): expected then,
 * and not worth crashing the run over.
 */
export function benchPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', (err: Error & { code?: string }) => {
    if (err.code !== '57P01') throw err;
  });
  return pool;
}

/** Peak resident memory of a process so far, from /proc (Linux). */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** A process's fields from /proc/<pid>/stat, numbered as in proc(5) (1 = pid), or null once it is gone. */
export function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after it may not.
    return [String(pid), stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
  } catch {
    return null;
  }
}

const TICKS_PER_SECOND = 100;

/**
 * CPU seconds used so far by a process (all its threads), by its children it has reaped, and by
 * its live children (Linux). Less at the mercy of a noisy machine than seconds on the clock.
 */
export function cpuSeconds(pid: number): number {
  // utime, stime, and the same of reaped children.
  const ticks = (fields: string[] | null) => (fields ? Number(fields[13]) + Number(fields[14]) + Number(fields[15]) + Number(fields[16]) : 0);
  let total = ticks(procStat(pid));
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(Number(entry));
    if (fields?.[3] === String(pid)) total += ticks(fields);
  }
  return total / TICKS_PER_SECOND;
}

/** The PostgreSQL server this process started: its postmaster, a child or a grandchild (a launcher may stand between). */
export function childPostgresPid(): number {
  const parentOf = (pid: number) => Number(procStat(pid)?.[3] ?? 0);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(Number(entry));
    if (fields?.[1] !== 'postgres' || procStat(Number(fields[3]))?.[1] === 'postgres') continue;
    const parent = Number(fields[3]);
    if (parent === process.pid || parentOf(parent) === process.pid) return Number(entry);
  }
  throw new Error("no PostgreSQL server among this process's children");
}

/**
 * What the benchmarks pass on to the server under test: Node flags (`SERVER_NODE_OPTIONS`) and
 * glibc's arena count (`SERVER_MALLOC_ARENA_MAX`), both set at the server's launch.
 */
export function serverTuning(): Record<string, string> {
  return {
    ...(process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {}),
    ...(process.env.SERVER_MALLOC_ARENA_MAX ? { MALLOC_ARENA_MAX: process.env.SERVER_MALLOC_ARENA_MAX } : {}),
  };
}

/** Replaces the section of bench/README.md between `<!-- name -->` markers. */
export function recordSection(name: string, markdown: string): void {
  const file = `${ROOT}/bench/README.md`;
  const text = readFileSync(file, 'utf8');
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${markdown.trim()}\n${end}`;
  const pattern = new RegExp(`${start}[\\s\\S]*?${end}`);
  writeFileSync(file, pattern.test(text) ? text.replace(pattern, block) : `${text.trimEnd()}\n\n${block}\n`);
}

/** When and where a run happened, for the record. */
export function runContext(): string {
  return `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} CPUs`;
}

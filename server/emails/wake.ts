/**
 * Messages queued by this process wake its senders at once; those of other processes are found
 * by the senders' polling. One list of waiters per process.
 */
let waiters: (() => void)[] = [];

/** Wakes every sender waiting in this process. */
export function announceQueued(): void {
  const woken = waiters;
  waiters = [];
  for (const wake of woken) wake();
}

/** Resolves when something is queued here, after `ms`, or when `signal` aborts, whichever comes first. */
export function onQueued(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      waiters = waiters.filter((w) => w !== done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    waiters.push(done);
  });
}

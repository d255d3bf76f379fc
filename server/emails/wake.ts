/**
 * Messages queued by this process wake its senders at once; those of other processes are found
 * by the senders' polling. One list of waiters per process.
 */
let waiters: ((woken: boolean) => void)[] = [];

/** Wakes one sender waiting in this process (the others keep polling): one claims what is due. */
export function announceQueued(): void {
  waiters.shift()?.(true);
}

/**
 * Resolves when something is queued here (true), after `ms` or when `signal` aborts (false),
 * whichever comes first.
 */
export function onQueued(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (woken = false) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', aborted);
      waiters = waiters.filter((w) => w !== done);
      resolve(woken);
    };
    const aborted = () => done(false);
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', aborted, { once: true });
    waiters.push(done);
  });
}

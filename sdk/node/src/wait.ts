/**
 * `contactImports.wait(id)`, `contactExports.wait(id)` and `campaigns.wait(id)`: one polling
 * loop, with the same options, until the resource reaches a status the contract gives as final.
 */
import { APITimeoutError } from './errors.ts';
import type { RequestOptions, Result, Transport } from './transport.ts';

export interface WaitOptions {
  /** Milliseconds to wait in all (default 600 000: ten minutes). */
  timeout?: number;
  /** Milliseconds between polls (default 1 000). */
  interval?: number;
}

const DEFAULT_WAIT_TIMEOUT_MS = 600_000;
const DEFAULT_WAIT_INTERVAL_MS = 1_000;

/** What each `wait` polls, what it calls the resource in its timeout message, and when it stops. */
const WAITABLE = {
  ContactImports_get: { kind: 'import', final: ['completed', 'failed'] },
  ContactExports_get: { kind: 'export', final: ['completed', 'failed'] },
  Campaigns_get: { kind: 'campaign', final: ['completed', 'cancelled', 'failed'] },
} as const;

export type Waitable = keyof typeof WAITABLE;

export async function waitUntilFinal<O extends Waitable>(
  transport: Transport,
  operation: O,
  id: string,
  wait: WaitOptions = {},
  options?: RequestOptions,
): Promise<Result<O>> {
  const { kind, final } = WAITABLE[operation];
  const timeout = wait.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
  const interval = wait.interval ?? DEFAULT_WAIT_INTERVAL_MS;
  const deadline = Date.now() + timeout;
  for (;;) {
    const { data } = await transport.request<Waitable>(operation, { path: { id } }, options);
    if ((final as readonly string[]).includes(data.status)) return data as Result<O>;
    if (Date.now() + interval > deadline) throw new APITimeoutError(`${kind} ${id} is still ${data.status} after ${timeout} ms`);
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

import { Worker } from 'node:worker_threads';
import type { Config } from '../config.ts';
import type { ImportOutcome } from './processor.ts';
import type { BatchCounts } from './store.ts';

export interface ImportThreadData {
  importId: string;
  databaseUrl: string;
  limits: Config['imports'];
  logLevel: string;
}

export type ImportThreadMessage = { kind: 'touch'; counts: BatchCounts } | { kind: 'outcome'; outcome: ImportOutcome };

/** Runs one import in a thread of its own; `signal` asks it to stop at its next batch. */
export function runImportThread(data: ImportThreadData, control: { signal: AbortSignal; touch: (counts: BatchCounts) => void }): Promise<ImportOutcome> {
  return new Promise((resolve, reject) => {
    // An import's live data is a few batches (tens of MB); without caps V8 would let the thread's
    // heap grow to hundreds of MB before collecting, as it does on the main thread.
    const heap = data.limits.threadHeapMb;
    const resourceLimits = { maxOldGenerationSizeMb: heap, maxYoungGenerationSizeMb: Math.max(1, Math.round(heap / 8)) };
    const worker = new Worker(new URL('./import-thread.ts', import.meta.url), { workerData: data, resourceLimits });
    const abort = () => worker.postMessage('abort');
    if (control.signal.aborted) abort();
    else control.signal.addEventListener('abort', abort, { once: true });
    let outcome: ImportOutcome | null = null;
    let failure: Error | null = null;
    worker.on('message', (message: ImportThreadMessage) => {
      if (message.kind === 'touch') control.touch(message.counts);
      else outcome = message.outcome;
    });
    worker.on('error', (err: Error) => {
      failure = err;
    });
    worker.once('exit', (code) => {
      control.signal.removeEventListener('abort', abort);
      if (outcome) resolve(outcome);
      else reject(failure ?? new Error(`the import thread stopped (exit code ${code}) before it finished`));
    });
  });
}

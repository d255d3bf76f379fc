/**
 * Writes that arrive while earlier ones are in flight go together in the next write: with up to
 * `maxInFlight` writes running, nothing waits while the database keeps up, and under load each
 * round trip and commit carries every request that queued meanwhile (at most `maxItems`).
 */
export class Coalescer<T, R> {
  private readonly write: (items: T[]) => Promise<R>;
  private readonly maxInFlight: number;
  private readonly maxItems: number;
  private queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;

  /** `write` answers one result for all its items. */
  constructor(write: (items: T[]) => Promise<R>, maxInFlight: number, maxItems: number) {
    this.write = write;
    this.maxInFlight = maxInFlight;
    this.maxItems = maxItems;
  }

  /** Resolves with the result of the write that carried `item`. */
  run(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length) {
      const batch = this.queue.splice(0, this.maxItems);
      this.inFlight++;
      this.write(batch.map((b) => b.item))
        .then(
          (result) => batch.forEach((b) => b.resolve(result)),
          (error: unknown) => {
            // One item's failure is not its neighbours': each goes again alone.
            if (batch.length === 1) batch[0].reject(error);
            else for (const b of batch) this.write([b.item]).then(b.resolve, b.reject);
          },
        )
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
  }
}

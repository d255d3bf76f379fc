const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Paces sends to `perSecond` (0: no limit). */
export class Pacer {
  private next = 0;
  private readonly gap: number;

  constructor(perSecond: number) {
    this.gap = perSecond > 0 ? 1000 / perSecond : 0;
  }

  async wait(): Promise<void> {
    if (!this.gap) return;
    const now = performance.now();
    const at = Math.max(now, this.next);
    this.next = at + this.gap;
    if (at > now) await sleep(at - now);
  }
}

/**
 * A request to a tracking route as it was answered. Everything a request can leave for later is
 * left to the batch's writer: work on the request's path costs the answer twice over under load.
 */
export interface TrackedRequest {
  /** An open: the pixel's token as requested, checked when written (a forged one records nothing). */
  openToken?: string;
  /** A click: its token was checked before the redirect. */
  click?: { messageId: string; link: number; url: string };
  /** Milliseconds since the epoch. */
  at: number;
  userAgent: string | null;
  remoteAddress: string | undefined;
  forwardedFor: string | undefined;
}

export interface PendingLimits {
  requests: number;
  /** An estimate: two bytes a character of what a request keeps, and its object. */
  bytes: number;
}

/**
 * Above 500,000 unwritten requests or about 256 MB of them (the database is down, or a flood of
 * forged pixels with long headers: an open's token is checked only when its batch is written),
 * new requests are dropped and counted.
 */
const PENDING_LIMITS: PendingLimits = { requests: 500_000, bytes: 256 * 1024 * 1024 };

const sizeOf = (r: TrackedRequest) =>
  200 + 2 * ((r.openToken?.length ?? 0) + (r.click?.url.length ?? 0) + (r.userAgent?.length ?? 0) + (r.forwardedFor?.length ?? 0));

/** Tracked requests waiting for their batch, in arrival order, within limits of count and size. */
export class PendingRequests {
  private items: TrackedRequest[] = [];
  private bytes = 0;
  private droppedCount = 0;
  private readonly limits: PendingLimits;

  constructor(limits: PendingLimits = PENDING_LIMITS) {
    this.limits = limits;
  }

  get length(): number {
    return this.items.length;
  }

  add(request: TrackedRequest): void {
    const size = sizeOf(request);
    if (this.items.length >= this.limits.requests || this.bytes + size > this.limits.bytes) {
      this.droppedCount++;
      return;
    }
    this.items.push(request);
    this.bytes += size;
  }

  /** Everything waiting, leaving none. */
  take(): TrackedRequest[] {
    const taken = this.items;
    this.items = [];
    this.bytes = 0;
    return taken;
  }

  /** A batch whose write failed goes back before what arrived meanwhile, within the limits. */
  putBack(batch: TrackedRequest[]): void {
    const arrived = this.take();
    for (const request of batch) this.add(request);
    for (const request of arrived) this.add(request);
  }

  /** How many were dropped since the last call. */
  takeDropped(): number {
    const dropped = this.droppedCount;
    this.droppedCount = 0;
    return dropped;
  }
}

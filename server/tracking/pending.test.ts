import { describe, expect, it } from 'vitest';
import { PendingRequests } from './pending.ts';
import type { TrackedRequest } from './pending.ts';

const open = (token: string, userAgent: string | null = null): TrackedRequest => ({
  openToken: token,
  click: undefined,
  at: 0,
  userAgent,
  remoteAddress: '127.0.0.1',
  forwardedFor: undefined,
});
const tokens = (requests: TrackedRequest[]) => requests.map((r) => r.openToken);

describe('pending tracked requests', () => {
  it('keep arrival order and drop what passes the count, counting the drops once', () => {
    const pending = new PendingRequests({ requests: 3, bytes: 1_000_000 });
    for (const token of ['a', 'b', 'c', 'd', 'e']) pending.add(open(token));
    expect(pending.length).toBe(3);
    expect(pending.takeDropped()).toBe(2);
    expect(pending.takeDropped()).toBe(0);
    expect(tokens(pending.take())).toEqual(['a', 'b', 'c']);
    expect(pending.length).toBe(0);
  });

  it('drop requests whose headers would pass the size, while small ones still fit', () => {
    // Each small request counts 202 bytes; one with a 16 KB agent counts 32,970.
    const pending = new PendingRequests({ requests: 100, bytes: 1_000 });
    pending.add(open('a'));
    pending.add(open('b', 'x'.repeat(16_384)));
    pending.add(open('c'));
    expect(tokens(pending.take())).toEqual(['a', 'c']);
    expect(pending.takeDropped()).toBe(1);
    // Taking frees the room.
    for (const token of ['d', 'e', 'f', 'g']) pending.add(open(token));
    expect(pending.length).toBe(4);
  });

  it('put a failed batch back before what arrived meanwhile, within the limits', () => {
    const pending = new PendingRequests({ requests: 4, bytes: 1_000_000 });
    pending.add(open('a'));
    pending.add(open('b'));
    const batch = pending.take();
    pending.add(open('c'));
    pending.add(open('d'));
    pending.add(open('e'));
    pending.putBack(batch);
    expect(tokens(pending.take())).toEqual(['a', 'b', 'c', 'd']);
    expect(pending.takeDropped()).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { Coalescer } from './coalesce.ts';

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Coalescer', () => {
  it('writes at once while under its limit, then carries what queued meanwhile in one write', async () => {
    const writes: number[][] = [];
    const coalescer = new Coalescer<number, string>(
      async (items) => {
        writes.push(items);
        await tick();
        return items.join('+');
      },
      1,
      3,
    );
    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => coalescer.run(n)));
    expect(writes).toEqual([[1], [2, 3, 4], [5, 6]]);
    expect(results).toEqual(['1', '2+3+4', '2+3+4', '2+3+4', '5+6', '5+6']);
  });

  it('writes each item of a failed write again alone, so one bad item fails only itself', async () => {
    const coalescer = new Coalescer<number, string>(
      async (items) => {
        await tick();
        if (items.includes(3)) throw new Error('item 3 is bad');
        return items.join('+');
      },
      1,
      10,
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => coalescer.run(n)));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['1', '2', 'item 3 is bad', '4']);
  });
});

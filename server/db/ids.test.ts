import { afterEach, describe, expect, it, vi } from 'vitest';
import { newId, randomToken } from './ids.ts';

describe('ids', () => {
  afterEach(() => vi.useRealTimers());

  it('sort as text in the order they were made, across every digit of the time part', () => {
    vi.useFakeTimers();
    const start = Date.UTC(2026, 10, 21);
    // Steps of 1 ms, then across the second and third base-62 digits.
    const times = [
      ...new Set([
        ...Array.from({ length: 130 }, (_, i) => start + i),
        ...Array.from({ length: 130 }, (_, i) => start + i * 62),
        ...Array.from({ length: 130 }, (_, i) => start + i * 3844),
      ]),
    ];
    const ids = times
      .sort((a, b) => a - b)
      .map((t) => {
        vi.setSystemTime(t);
        return newId('ct');
      });
    expect([...ids].sort()).toEqual(ids);
  });

  it('are unique, prefixed and ordered by time', async () => {
    const ids = Array.from({ length: 100_000 }, () => newId('ct'));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^ct_[0-9A-Za-z]{22}$/.test(id))).toBe(true);
    const before = newId('evt');
    await new Promise((r) => setTimeout(r, 5));
    expect(newId('evt').slice(4, 12) > before.slice(4, 12)).toBe(true);
  });

  it('draw every base62 character about equally often', () => {
    const counts = new Map<string, number>();
    for (const char of randomToken(620_000)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 10,000 expected per character; a biased modulo would put the first 8 near 10,300.
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(500);
  });
});

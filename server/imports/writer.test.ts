import { describe, expect, it } from 'vitest';
import { writerFor } from './writer.ts';

describe('writerFor', () => {
  it('sends an address to one writer whatever its ASCII case', () => {
    for (const email of ['Ann.Lee@Example.com', 'BOB@x.io', 'c_d+e@mail.example']) {
      expect(writerFor(email, 2)).toBe(writerFor(email.toLowerCase(), 2));
      expect(writerFor(email, 5)).toBe(writerFor(email.toUpperCase(), 5));
    }
  });

  it('spreads addresses evenly and stays within the writers', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 30_000; i++) counts[writerFor(`person${i}@example.com`, 3)]++;
    for (const n of counts) expect(n).toBeGreaterThan(9_000);
  });

  it('gives addresses with other characters to the first writer, and everything to a single one', () => {
    expect(writerFor('jürgen@example.com', 4)).toBe(0);
    expect(writerFor('\u212Aate@example.com', 4)).toBe(0);
    expect(writerFor('anyone@example.com', 1)).toBe(0);
  });
});

import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { macMatches } from './mac.ts';

describe('a MAC in a token', () => {
  const mac = createHmac('sha256', 'key').update('signed').digest().subarray(0, 16);
  const text = mac.toString('base64url');

  it('matches in its canonical base64url spelling only', () => {
    expect(macMatches(text, mac)).toBe(true);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = text.slice(0, -1) + alphabet[alphabet.indexOf(text.at(-1)!) ^ 1];
    expect(Buffer.from(respelled, 'base64url')).toEqual(mac);
    for (const other of [respelled, `${text}=`, `${text.slice(0, 10)}!${text.slice(10)}`, text.replace(/-/g, '+').replace(/_/g, '/')]) {
      if (other !== text) expect(macMatches(other, mac), other).toBe(false);
    }
  });
});

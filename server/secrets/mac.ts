import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a MAC as it appears in a token is the canonical base64url spelling of `expected`.
 * Node's decoder takes a last character with other unused bits, and skips characters outside
 * the alphabet, as the same bytes: comparing the text gives a token exactly one spelling.
 */
export function macMatches(given: string, expected: Buffer): boolean {
  const canonical = Buffer.from(expected.toString('base64url'));
  const text = Buffer.from(given);
  return text.length === canonical.length && timingSafeEqual(text, canonical);
}

import { domainOf } from '../email.ts';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A sending domain's name as stored: lower case, without a trailing dot. Null when it is not a
 * host name of two or more labels (IP addresses, underscores, a label over 63 characters, a
 * top-level label of digits only).
 */
export function domainName(input: string): string | null {
  const name = input.trim().toLowerCase().replace(/\.$/, '');
  if (name.length > 253) return null;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return null;
  if (/^\d+$/.test(labels[labels.length - 1])) return null;
  return name;
}

/** The domain of an address and each parent of it, nearest first, down to two labels (`a.b.example.com` → `a.b.example.com`, `b.example.com`, `example.com`). */
export function domainAndParents(email: string): string[] {
  const labels = domainOf(email).replace(/\.$/, '').split('.');
  const names: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) names.push(labels.slice(i).join('.'));
  return names;
}

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PROBLEM_CODES } from './problem-codes.ts';

const SERVER = fileURLToPath(new URL('..', import.meta.url));

/** The codes the server's source gives problems: `new Problem(404, 'not_found', …)`, `forbidden('…')`, the webhook URL checks. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  const patterns = [/new Problem\(\s*\d{3},\s*'([a-z_]+)'/g, /\b(?:forbidden|conflict|unauthorized)\(\s*'([a-z_]+)'/g];
  for (const file of readdirSync(SERVER, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
    const text = readFileSync(path.join(SERVER, file), 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.add(match[1]);
    if (file.endsWith(path.join('webhooks', 'address-guard.ts'))) for (const match of text.matchAll(/\bcode: '([a-z_]+)'/g)) codes.add(match[1]);
  }
  return codes;
}

describe('the problem code catalogue', () => {
  it('lists every code the server answers with, and only those', () => {
    const source = codesInSource();
    expect(source.size).toBeGreaterThan(30);
    expect([...source].filter((code) => !PROBLEM_CODES[code]).sort()).toEqual([]);
    expect(Object.keys(PROBLEM_CODES).filter((code) => !source.has(code)).sort()).toEqual([]);
  });
});

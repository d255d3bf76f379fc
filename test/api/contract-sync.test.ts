import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

describe('generated/ is what spec/ compiles to', () => {
  it('openapi.yaml and openapi.d.ts are up to date (run `npm run generate`)', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'sendline-spec-'));
    execFileSync(
      bin('tsp'),
      ['compile', 'spec/main.tsp', '--config', 'tspconfig.yaml', '--output-dir', out, '--option', `@typespec/openapi3.emitter-output-dir=${out}`],
      { cwd: ROOT, stdio: 'pipe' },
    );
    const yaml = readFileSync(path.join(out, 'openapi.yaml'), 'utf8');
    expect(yaml).toBe(readFileSync(path.join(ROOT, 'generated/openapi.yaml'), 'utf8'));
    execFileSync(bin('openapi-typescript'), [path.join(out, 'openapi.yaml'), '-o', path.join(out, 'openapi.d.ts')], { cwd: ROOT, stdio: 'pipe' });
    expect(readFileSync(path.join(out, 'openapi.d.ts'), 'utf8')).toBe(readFileSync(path.join(ROOT, 'generated/openapi.d.ts'), 'utf8'));
  }, 60_000);
});

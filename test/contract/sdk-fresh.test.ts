/** The committed SDKs are what `npm run sdk:generate` makes of the committed contract. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function files(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, base) : [path.relative(base, full)];
  });
}

describe('sdk/', () => {
  it('matches a fresh generation (run `npm run sdk:generate`)', () => {
    const out = mkdtempSync(path.join(tmpdir(), 'sendline-sdk-'));
    execFileSync('bash', ['scripts/sdk-generate.sh', out], { cwd: ROOT, stdio: 'pipe' });
    const stale: string[] = [];
    for (const file of files(out)) {
      const committed = path.join(ROOT, 'sdk', file);
      if (!existsSync(committed) || readFileSync(committed, 'utf8') !== readFileSync(path.join(out, file), 'utf8')) stale.push(file);
    }
    // Files the generator made before but would not make now.
    for (const language of ['python', 'php', 'ruby']) {
      const listed = readFileSync(path.join(ROOT, 'sdk', language, '.openapi-generator', 'FILES'), 'utf8')
        .split('\n')
        .filter(Boolean);
      for (const file of listed) if (!existsSync(path.join(out, language, file))) stale.push(`${language}/${file} (no longer generated)`);
    }
    expect(stale).toEqual([]);
  }, 120_000);
});

/**
 * The contract scenarios through the Python, PHP and Ruby SDKs: each language's own runner
 * (pytest, PHPUnit, RSpec) against one live server.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startContractEnvironment, type ContractEnvironment } from './harness.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let env: ContractEnvironment;
beforeAll(async () => {
  env = await startContractEnvironment();
});
afterAll(() => env.stop());

async function run(command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  const quickstart = await env.quickstart();
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        ...quickstart,
        SENDLINE_BASE_URL: env.baseUrl,
        SENDLINE_SERVER_URL: env.sendline.url,
        SENDLINE_WEBHOOK_URL: env.webhookUrl,
        ...extraEnv,
      },
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('SDK runners', () => {
  it('Python (pytest)', async () => {
    const { code, output } = await run(`${ROOT}/.venv/bin/python`, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'contract_tests'], `${ROOT}/sdk/python`, {
      PYTHONPATH: `${ROOT}/sdk/python`,
    });
    expect(code, output).toBe(0);
  }, 180_000);

  it('Ruby (RSpec)', async () => {
    const { code, output } = await run('rspec', ['--no-color', 'contract_spec'], `${ROOT}/sdk/ruby`, { RUBYLIB: `${ROOT}/sdk/ruby/lib` });
    expect(code, output).toBe(0);
  }, 120_000);

  it('PHP (PHPUnit)', async () => {
    const { code, output } = await run('phpunit', ['--colors=never', '--do-not-cache-result', '-c', 'phpunit.contract.xml'], `${ROOT}/sdk/php`);
    expect(code, output).toBe(0);
  }, 120_000);
});

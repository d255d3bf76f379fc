/** The contract scenarios through the Node.js SDK (`sdk/node`). */
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSendline, SendlineError, type OperationId, type Sendline } from '../../sdk/node/src/index.ts';
import { startContractEnvironment, type ContractEnvironment } from './harness.ts';
import { dig, interpolate, loadScenarios, subsetMismatch, typeMatches, type Step } from './scenarios.ts';

let env: ContractEnvironment;
beforeAll(async () => {
  env = await startContractEnvironment();
});
afterAll(() => env.stop());

async function call(client: Sendline, step: Step, vars: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const args = interpolate({ path: step.path, query: step.query, body: step.body }, vars) as object;
  try {
    const { status, data } = await client.request(step.op as OperationId, args);
    return { status, body: data };
  } catch (error) {
    if (error instanceof SendlineError) return { status: error.status, body: error.problem };
    throw error;
  }
}

async function runStep(client: Sendline, step: Step, vars: Record<string, unknown>) {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const result = await call(client, step, vars);
    if (result.status !== step.status && attempt < (step.attempts ?? 1)) continue;
    if (!step.until || !subsetMismatch(result.body, interpolate(step.until, vars))) return result;
    if (Date.now() - started > 20_000) throw new Error(`${step.op}: never reached ${JSON.stringify(step.until)}; last ${JSON.stringify(result.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

for (const scenario of loadScenarios()) {
  describe(scenario.file, () => {
    it(scenario.name, async () => {
      const vars: Record<string, unknown> = { unique: randomUUID().slice(0, 8), webhook_url: env.webhookUrl };
      let client = createSendline({ baseUrl: env.baseUrl });
      for (const [index, step] of scenario.steps.entries()) {
        const where = `step ${index + 1} (${step.op ?? 'auth'})`;
        if ('auth' in step) {
          const auth = interpolate(step.auth, vars) as Step['auth'];
          client = createSendline({ baseUrl: env.baseUrl, token: auth?.bearer, apiKey: auth?.api_key });
          continue;
        }
        const { status, body } = await runStep(client, step, vars);
        expect(status, `${where}: ${JSON.stringify(body)}`).toBe(step.status);
        if (step.problem) {
          expect(subsetMismatch(body, interpolate(step.problem, vars)), where).toBeNull();
          expect(typeof (body as { title?: unknown }).title, where).toBe('string');
        }
        if (step.expect) expect(subsetMismatch(body, interpolate(step.expect, vars)), where).toBeNull();
        if (step.contains) expect(String(body), where).toContain(step.contains);
        for (const [path, type] of Object.entries(step.types ?? {}))
          expect(typeMatches(dig(body, path), type), `${where}: ${path} should be ${type}`).toBe(true);
        for (const [name, path] of Object.entries(step.capture ?? {})) vars[name] = dig(body, path);
      }
    });
  });
}

describe('sdk/node/README.md', () => {
  it('runs its quick-start', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const code = /```ts\n([\s\S]*?)```/.exec(readFileSync(`${root}/sdk/node/README.md`, 'utf8'))![1];
    const dir = mkdtempSync(path.join(root, 'sdk/node/.quickstart-'));
    const file = path.join(dir, 'quickstart.ts');
    writeFileSync(file, code.replace("from '@sendline/sdk'", "from '../src/index.ts'"));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [file], {
        env: { ...process.env, ...(await env.quickstart()), SENDLINE_BASE_URL: env.baseUrl },
      });
      expect(stdout).toMatch(/^sent \d+, unique opens \d+\nada@example.com\n404 not_found\nwebhook.test\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

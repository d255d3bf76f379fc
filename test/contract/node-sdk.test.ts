/**
 * The contract scenarios through the Node.js SDK (`sdk/node`): `op` steps through its
 * generated-operations layer (`Transport.request`), `client` steps through the idiomatic client.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as sdk from '../../sdk/node/src/index.ts';
import { operations } from '../../sdk/node/src/operations.ts';
import { startContractEnvironment, type ContractEnvironment } from './harness.ts';
import { dig, interpolate, loadScenarios, subsetMismatch, typeMatches, type Step } from './scenarios.ts';

let env: ContractEnvironment;
beforeAll(async () => {
  env = await startContractEnvironment();
});
afterAll(() => env.stop());

/**
 * Replaying a POST with the same Idempotency-Key needs the server's support: until the contract
 * declares the header, the steps that reuse a key are left out (their first use still runs).
 */
const serverIdempotency = readFileSync(new URL('../../generated/openapi.yaml', import.meta.url), 'utf8').includes('Idempotency-Key');

interface Clients {
  operations: sdk.Transport;
  client?: sdk.Sendline;
}

function clients(credential?: string): Clients {
  // Scenarios assert statuses (a 429 among them): the operations layer must not retry.
  const operations = new sdk.Transport({ baseUrl: env.baseUrl, apiKey: credential, anonymous: !credential, maxRetries: 0 });
  return { operations, client: credential ? new sdk.Sendline({ baseUrl: env.baseUrl, apiKey: credential }) : undefined };
}

async function call(transport: sdk.Transport, step: Step, vars: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const args = interpolate({ path: step.path, query: step.query, body: step.body }, vars) as sdk.UncheckedArgs;
  try {
    const { status, data } = await transport.send(step.op as sdk.OperationId, args);
    return { status, body: data };
  } catch (error) {
    if (error instanceof sdk.SendlineError && error.status) return { status: error.status, body: error.problem };
    throw error;
  }
}

async function runOp(transport: sdk.Transport, step: Step, vars: Record<string, unknown>) {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const result = await call(transport, step, vars);
    if (result.status !== step.status && attempt < (step.attempts ?? 1)) continue;
    if (!step.until || !subsetMismatch(result.body, interpolate(step.until, vars))) return result;
    if (Date.now() - started > 20_000) throw new Error(`${step.op}: never reached ${JSON.stringify(step.until)}; last ${JSON.stringify(result.body)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `{ "$date": "…" }` becomes a Date, as a program would pass one. */
function withDates(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withDates);
  if (value && typeof value === 'object') {
    if ('$date' in value) return new Date(String(value.$date));
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withDates(v)]));
  }
  return value;
}

const camel = (name: string) => name.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());

/** A `client` step: `contacts.create` is `client.contacts.create({ … }, { idempotencyKey })`, ids positional. */
async function runClient(client: sdk.Sendline, step: Step, vars: Record<string, unknown>): Promise<unknown> {
  const [resource, method] = step.client!.split('.').map(camel);
  const args = withDates(interpolate(step.args ?? {}, vars)) as Record<string, unknown>;
  const options = step.idempotency_key ? { idempotencyKey: String(interpolate(step.idempotency_key, vars)) } : undefined;
  if (resource === 'contacts' && method === 'importCsv') {
    const { csv, path, ...params } = args;
    const started = await client.contacts.importCsv(path ? { path: path as string } : (csv as string), params, options);
    return step.wait ? client.contactImports.wait(started.id, { interval: 100, timeout: 20_000 }) : started;
  }
  if (method === 'wait') {
    const { id, timeout, interval } = args as { id: string; timeout?: number; interval?: number };
    const milliseconds = (seconds?: number) => (seconds === undefined ? undefined : seconds * 1000);
    const resourceWithWait = (client as unknown as Record<string, { wait: (id: string, wait: sdk.WaitOptions) => Promise<unknown> }>)[resource];
    return resourceWithWait.wait(id, { timeout: milliseconds(timeout), interval: milliseconds(interval) });
  }
  const id = Object.keys(operations).find((key) => key === `${resource[0].toUpperCase()}${resource.slice(1)}_${method}`) as keyof typeof operations;
  if (!id) throw new Error(`${step.client}: no such operation`);
  const operation = operations[id];
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const params = Object.fromEntries(Object.entries(args).filter(([key]) => !names.includes(key)));
  const takesParams = operation.body || operation.query.length > 0;
  const fn = (client as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[resource][method];
  const result = fn(...names.map((name) => args[name]), ...(takesParams ? [params] : []), options);
  if (!step.collect) return result;
  const collected: unknown[] = [];
  for await (const item of result as AsyncIterable<unknown>) collected.push(dig(item, step.collect));
  return collected;
}

/** A `webhook` step: signed by the SDK, delivered with capitalised headers and the body as bytes. */
function runWebhook(step: Step): unknown {
  const { secret, event, tamper } = step.webhook!;
  const webhook = new sdk.Webhook(secret);
  const body = JSON.stringify(event);
  const now = new Date();
  const signature = webhook.sign(String(event.id), now, body);
  const delivered = tamper ? body.replace(/}$/, ',"tampered":true}') : body;
  const headers = { 'Webhook-Id': String(event.id), 'Webhook-Timestamp': String(Math.floor(now.getTime() / 1000)), 'Webhook-Signature': signature };
  return webhook.verify(Buffer.from(delivered), headers);
}

async function outcome(run: () => unknown): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error };
  }
}

function expectError(error: unknown, wanted: NonNullable<Step['error']>, vars: Record<string, unknown>, where: string) {
  const expected = interpolate(wanted, vars) as NonNullable<Step['error']>;
  const errorClass = (sdk as unknown as Record<string, new (...a: never[]) => unknown>)[expected.class];
  expect(errorClass, `${where}: ${expected.class} is exported`).toBeTypeOf('function');
  expect(error, `${where}: ${String(error)}`).toBeInstanceOf(errorClass);
  const thrown = error as sdk.SendlineError & { existingId?: string; errors?: sdk.FieldError[] };
  if (expected.status !== undefined) expect(thrown.status, where).toBe(expected.status);
  if (expected.code !== undefined) expect(thrown.code, where).toBe(expected.code);
  if (expected.existing_id !== undefined) expect(thrown.existingId, where).toBe(expected.existing_id);
  if (expected.pointer !== undefined)
    expect(
      thrown.errors?.map((e) => e.pointer),
      where,
    ).toContain(expected.pointer);
}

for (const scenario of loadScenarios()) {
  describe(scenario.file, () => {
    it(scenario.name, async () => {
      const vars: Record<string, unknown> = { unique: randomUUID().slice(0, 8), webhook_url: env.webhookUrl };
      const usedKeys = new Set<string>();
      let current = clients();
      for (const [index, step] of scenario.steps.entries()) {
        const where = `step ${index + 1} (${step.op ?? step.client ?? (step.webhook ? 'webhook' : 'auth')})`;
        if ('auth' in step) {
          const auth = interpolate(step.auth, vars) as Step['auth'];
          current = clients(auth?.bearer ?? auth?.api_key);
          continue;
        }
        if (step.client || step.webhook) {
          if (step.idempotency_key) {
            const key = String(interpolate(step.idempotency_key, vars));
            if (usedKeys.has(key) && !serverIdempotency) continue;
            usedKeys.add(key);
          }
          const client = current.client;
          const result = await outcome(() => (step.webhook ? runWebhook(step) : runClient(client!, step, vars)));
          if (step.error) expectError(result.error, step.error, vars, where);
          else expect(result.error, where).toBeUndefined();
          if (step.expect) expect(subsetMismatch(result.value, interpolate(step.expect, vars)), where).toBeNull();
          for (const [name, path] of Object.entries(step.capture ?? {})) vars[name] = dig(result.value, path);
          continue;
        }
        const { status, body } = await runOp(current.operations, step, vars);
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

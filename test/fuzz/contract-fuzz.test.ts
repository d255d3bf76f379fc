/**
 * Fuzzing from the contract: schemathesis (from the project's virtualenv) sends every operation of
 * `generated/openapi.yaml` valid and invalid requests, with a session and with an API key, and
 * fails on any 5xx and on any answer the contract does not declare (status, content type,
 * headers, body schema), on invalid requests that are accepted, and on authentication that is
 * not enforced. Settings (fixed seed, deterministic generation, examples per operation) are in
 * `schemathesis.toml` beside this file.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Sendline } from '../../server/start.ts';
import { newAccount, newApiKey, startTestServer, type TestAccount } from '../helpers.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SETTINGS = fileURLToPath(new URL('./schemathesis.toml', import.meta.url));
/**
 * Each run stops here whatever it has left, so a hung run fails rather than stalls the suite;
 * on a loaded 2-core machine the coverage phase alone has taken 133 s of a run.
 */
const RUN_LIMIT_MS = 300_000;

let sendline: Sendline;
let owner: TestAccount;
let workDir: string;
let webhookId: string;

/**
 * A database of its own: thousands of failed logins, made-up accounts and bad credentials from
 * 127.0.0.1 would otherwise fill the shared throttling counters of every other test's server.
 */
const DATABASE = 'sendline_fuzz';

async function onAdminConnection(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: inject('databaseUrl') });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

beforeAll(async () => {
  await onAdminConnection(`drop database if exists ${DATABASE}`);
  await onAdminConnection(`create database ${DATABASE}`);
  const url = new URL(inject('databaseUrl'));
  url.pathname = `/${DATABASE}`;
  sendline = await startTestServer({
    DATABASE_URL: url.href,
    // The fuzzer sends thousands of requests a minute with one credential.
    API_KEY_RATE_LIMIT: '1000000',
    // Webhook targets it makes up are never reachable; a test delivery gives up quickly.
    WEBHOOK_TIMEOUT_MS: '1000',
    // A closed port: domain lookups fail at once rather than wait on the machine's resolvers.
    DNS_SERVERS: '127.0.0.1:9',
  });
  owner = await newAccount(sendline.url, 'fuzz');
  // Webhooks the fuzzer makes rarely pass (their events must be known types): it gets one to work on.
  webhookId = (await owner.api('POST', '/api/webhooks', { body: { url: 'https://hooks.example.com/fuzz', events: ['*'] } })).body.id;
  workDir = mkdtempSync(path.join(tmpdir(), 'sendline-fuzz-'));
});
afterAll(async () => {
  await sendline?.stop();
  await onAdminConnection(`drop database if exists ${DATABASE} with (force)`);
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The shared settings plus how this run authenticates (a scheme of the contract and its value) and the webhook it works on. */
function settingsWith(auth: string): string {
  const file = path.join(workDir, `schemathesis-${Math.random().toString(36).slice(2)}.toml`);
  const webhook = `[[operations]]\ninclude-path-regex = "^/webhooks/\\\\{id\\\\}"\nparameters = { "path.id" = "${webhookId}" }`;
  writeFileSync(file, `${readFileSync(SETTINGS, 'utf8')}\n${webhook}\n\n${auth}\n`);
  return file;
}

async function schemathesis(settings: string, extraArgs: string[] = []): Promise<{ code: number | null; output: string }> {
  const args = [
    '-c',
    'from schemathesis.cli import schemathesis; schemathesis()',
    '--config-file',
    settings,
    'run',
    `${ROOT}/generated/openapi.yaml`,
    '--url',
    `${sendline.url}/api/v1`,
    '--no-color',
    ...extraArgs,
  ];
  return new Promise((resolve) => {
    // Run in the scratch folder: schemathesis keeps a cache in its working directory.
    const child = spawn(`${ROOT}/.venv/bin/python`, args, {
      cwd: workDir,
      env: { ...process.env, HYPOTHESIS_STORAGE_DIRECTORY: path.join(workDir, 'hypothesis') },
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    const timer = setTimeout(() => {
      output += `\n(stopped after ${RUN_LIMIT_MS / 1000} s)`;
      child.kill('SIGKILL');
    }, RUN_LIMIT_MS);
    // No virtualenv (vitest run without `npm test`, which makes it): say so rather than crash.
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${error.message}: run scripts/ensure-toolchains.sh` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The failures and the summary, without the progress lines before them. */
const report = (output: string) => output.slice(Math.max(0, output.lastIndexOf('\n', output.indexOf('FAILURES')))).slice(0, 60_000);

describe('fuzzing from the contract', () => {
  it(
    'keeps every operation within the contract with an API key',
    async () => {
      const { key } = await newApiKey(owner, sendline.url, { scopes: ['read', 'write'] });
      const run = await schemathesis(settingsWith(`[auth.openapi.ApiKeyAuth]\napi_key = "${key.key}"`));
      expect(run.code, report(run.output)).toBe(0);
    },
    RUN_LIMIT_MS + 10_000,
  );

  it(
    'keeps every operation within the contract with a session',
    async () => {
      // Logging out ends the session the run uses: that operation gets a run of its own, last.
      const settings = settingsWith(`[auth.openapi.BearerAuth]\nbearer = "${owner.token}"`);
      const run = await schemathesis(settings, ['--exclude-operation-id', 'Auth_logout']);
      expect(run.code, report(run.output)).toBe(0);
      const logout = await schemathesis(settings, ['--include-operation-id', 'Auth_logout']);
      expect(logout.code, report(logout.output)).toBe(0);
    },
    2 * RUN_LIMIT_MS + 10_000,
  );
});

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startSendline, type Sendline } from '../server/start.ts';
import type { SecretKey } from '../server/secrets/key-ring.ts';
import type { Answer } from './client.ts';
import { spawnServer, type ServerProcess } from './process.ts';
import { UNTHROTTLED } from './process.ts';
import { fileDatabaseUrl } from './databases.ts';

export * from './client.ts';

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-0123456789';
/** The test servers' key ring (`SECRET_KEYS`), apart from the JWT secret as in production. */
export const TEST_KEY_RING: SecretKey[] = [{ id: 'test1', key: Buffer.from('test key ring key, 32 bytes long!').toString('base64') }];
const TEST_SECRET_KEYS = TEST_KEY_RING.map(({ id, key }) => `${id}:${key}`).join(',');

/** Sendline in this process, on the shared test database, validating its own responses. */
export function startTestServer(env: Record<string, string> = {}): Promise<Sendline> {
  return startSendline({
    DATABASE_URL: fileDatabaseUrl(),
    DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-data-')),
    PORT: '0',
    HOST: '127.0.0.1',
    JWT_SECRET: TEST_JWT_SECRET,
    SECRET_KEYS: TEST_SECRET_KEYS,
    ALLOW_SIGNUP: 'true',
    VALIDATE_RESPONSES: 'true',
    // TEST_LOG_LEVEL=error shows what the servers of a failing test logged.
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...UNTHROTTLED,
    ...env,
  });
}

/** Sendline in a process of its own (as `npm start` runs it), on the shared test database. */
export function spawnTestServer(env: Record<string, string> = {}, options?: Parameters<typeof spawnServer>[1]): Promise<ServerProcess> {
  return spawnServer(
    {
      DATABASE_URL: fileDatabaseUrl(),
      DATA_DIR: mkdtempSync(path.join(tmpdir(), 'sendline-data-')),
      JWT_SECRET: TEST_JWT_SECRET,
      SECRET_KEYS: TEST_SECRET_KEYS,
      ALLOW_SIGNUP: 'true',
      ...env,
    },
    options,
  );
}

export function expectProblem(res: Answer, status: number, code: string) {
  if (res.status !== status || res.body?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body)}`);
  }
  if (!res.headers.get('content-type')?.startsWith('application/problem+json')) {
    throw new Error(`expected a problem+json body, got ${res.headers.get('content-type')}`);
  }
  if (res.body.success !== false || res.body.status !== status || typeof res.body.title !== 'string' || typeof res.body.type !== 'string') {
    throw new Error(`not an RFC 9457 problem: ${JSON.stringify(res.body)}`);
  }
}

/** Polls `check` until it answers something truthy, and answers that. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

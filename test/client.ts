/** A plain HTTP client for tests and benchmarks (no test-runner imports). */
import { randomUUID } from 'node:crypto';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface Client {
  (method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; raw?: string }): Promise<Answer>;
}

/** A small HTTP client for one base URL and one credential. */
export function client(baseUrl: string, auth: Record<string, string> = {}): Client {
  return async (method, urlPath, options = {}) => {
    const headers: Record<string, string> = { ...auth, ...options.headers };
    let body: string | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(baseUrl + urlPath, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const type = res.headers.get('content-type') ?? '';
    return { status: res.status, headers: res.headers, body: type.includes('json') && text ? JSON.parse(text) : text };
  };
}

export const uniqueEmail = (label = 'user') => `${label}-${randomUUID().slice(0, 8)}@example.com`;

export interface TestAccount {
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  userId: string;
  accountId: string;
  /** Calls as the account's owner (JWT). */
  api: Client;
}

/** Registers a new account with its owner through the API. */
export async function newAccount(baseUrl: string, label = 'owner'): Promise<TestAccount> {
  const email = uniqueEmail(label);
  const password = 'correct horse battery staple';
  const res = await client(baseUrl)('POST', '/api/auth/register', {
    body: { email, password, name: label, account_name: `${label} Ltd` },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return {
    email,
    password,
    token: res.body.token,
    refreshToken: res.body.refresh_token,
    userId: res.body.user.id,
    accountId: res.body.user.account_id,
    api: client(baseUrl, { authorization: `Bearer ${res.body.token}` }),
  };
}

/** Creates an API key for an account and answers a client that uses it. */
export async function newApiKey(account: TestAccount, baseUrl: string, body: Record<string, unknown> = {}, header: 'x-api-key' | 'bearer' = 'x-api-key') {
  const res = await account.api('POST', '/api/api-keys', { body: { name: 'test key', ...body } });
  if (res.status !== 201) throw new Error(`key failed: ${res.status} ${JSON.stringify(res.body)}`);
  const auth: Record<string, string> = header === 'x-api-key' ? { 'x-api-key': res.body.key } : { authorization: `Bearer ${res.body.key}` };
  return { key: res.body, api: client(baseUrl, auth) };
}

/**
 * The Node.js SDK's client policy against real loopback HTTP servers: retries with backoff and the
 * same Idempotency-Key, Retry-After, timeouts, connection errors, error classes, base URLs,
 * pagination, CSV uploads, and the key kept out of sight.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  ConfigurationError,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  Sendline,
  SendlineError,
  ServerError,
  UnknownEvent,
  ValidationError,
  VERSION,
  Webhook,
  WebhookVerificationError,
} from '../../sdk/node/src/index.ts';
import { Webhook as ReferenceWebhook } from 'standardwebhooks';
import { vi } from 'vitest';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

type Handler = (req: Received, res: ServerResponse, index: number) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A loopback server answering each request with the handler of its turn (the last one after that). */
async function serve(...handlers: Handler[]): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(request);
      handlers[Math.min(received.length - 1, handlers.length - 1)](request, res, received.length - 1);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, received };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_, res) => {
    res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  json(status, { type: `/docs/errors#${code}`, title: code, status, code, detail: `detail of ${code}`, success: false, ...extra }, headers);
const contact = { id: 'ct_1', email: 'ada@example.com' };
const KEY = 'sl_test_0123456789secret';

async function thrown(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('retries', () => {
  it('retries a 503 with backoff and sends the same Idempotency-Key on every attempt', async () => {
    const server = await serve(problem(503, 'unavailable'), problem(503, 'unavailable'), json(201, contact));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    await expect(sendline.contacts.create({ email: 'ada@example.com' })).resolves.toEqual(contact);
    expect(server.received).toHaveLength(3);
    const keys = server.received.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    for (const request of server.received) {
      expect(request.headers['user-agent']).toBe('sendline-node/0.1.0');
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(JSON.parse(request.body.toString())).toEqual({ email: 'ada@example.com' });
    }
    // Full jitter under 0.5 s then 1 s.
    expect(server.received[2].at - server.received[0].at).toBeLessThan(1_600);
  });

  it('sends the caller’s Idempotency-Key, and a new one for each call', async () => {
    const server = await serve(json(201, contact));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    await sendline.contacts.create({ email: 'ada@example.com' }, { idempotencyKey: 'my-key' });
    await sendline.contacts.create({ email: 'ada@example.com' });
    await sendline.contacts.create({ email: 'ada@example.com' });
    const keys = server.received.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe('my-key');
    expect(keys[1]).not.toBe(keys[2]);
  });

  it('sends no Idempotency-Key on a GET', async () => {
    const server = await serve(json(200, contact));
    await new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1');
    expect(server.received[0].headers['idempotency-key']).toBeUndefined();
  });

  it('retries a 409 idempotency_key_in_use, not another conflict', async () => {
    const inUse = await serve(problem(409, 'idempotency_key_in_use'), json(201, contact));
    await expect(new Sendline({ apiKey: KEY, baseUrl: inUse.url }).contacts.create({ email: 'a@b.co' })).resolves.toEqual(contact);
    expect(inUse.received).toHaveLength(2);
    const exists = await serve(problem(409, 'contact_exists', { existing_id: 'ct_9' }));
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: exists.url }).contacts.create({ email: 'a@b.co' }));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).existingId).toBe('ct_9');
    expect(exists.received).toHaveLength(1);
  });

  it('honours Retry-After: 1 on a 429', async () => {
    const server = await serve(problem(429, 'rate_limited', {}, { 'retry-after': '1' }), json(200, contact));
    await expect(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1')).resolves.toEqual(contact);
    expect(server.received[1].at - server.received[0].at).toBeGreaterThanOrEqual(950);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 2_000).toUTCString();
    const server = await serve(problem(503, 'unavailable', {}, { 'retry-after': at }), json(200, contact));
    await expect(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1')).resolves.toEqual(contact);
    expect(server.received[1].at - server.received[0].at).toBeGreaterThanOrEqual(900);
  });

  it('raises a RateLimitError at once when Retry-After is above 20 s', async () => {
    const server = await serve(problem(429, 'rate_limited', {}, { 'retry-after': '52' }));
    const started = Date.now();
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.list().firstPage());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(52);
    expect(server.received).toHaveLength(1);
  });

  it('gives up after maxRetries and throws the last answer’s error', async () => {
    const server = await serve(problem(500, 'internal_error'));
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 1 }).contacts.get('ct_1'));
    expect(error).toBeInstanceOf(ServerError);
    expect(server.received).toHaveLength(2);
    await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1', { maxRetries: 0 }));
    expect(server.received).toHaveLength(3);
  });

  it('does not retry a 400, 401, 403 or 404', async () => {
    const server = await serve(problem(404, 'not_found'));
    await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1'));
    expect(server.received).toHaveLength(1);
  });
});

describe('idempotency against a stand-in server with the API’s semantics', () => {
  /** Same key and body: the stored answer again; another body: 422; the first still running: 409. */
  async function idempotentServer(busyFirst: number) {
    const stored = new Map<string, { body: string; id: string }>();
    let busy = busyFirst;
    return serve((req, res) => {
      const key = String(req.headers['idempotency-key']);
      const body = req.body.toString();
      const previous = stored.get(key);
      if (previous && previous.body !== body) return problem(422, 'idempotency_key_reused')(req, res, 0);
      if (previous && busy-- > 0) return problem(409, 'idempotency_key_in_use')(req, res, 0);
      if (previous) return json(201, { id: previous.id, email: JSON.parse(body).email }, { 'idempotent-replayed': 'true' })(req, res, 0);
      stored.set(key, { body, id: `ct_${stored.size + 1}` });
      json(201, { id: `ct_${stored.size}`, email: JSON.parse(body).email })(req, res, 0);
    });
  }

  it('replays the same key and body, refuses it with another body', async () => {
    const server = await idempotentServer(0);
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const first = await sendline.contacts.create({ email: 'ada@example.com' }, { idempotencyKey: 'k1' });
    await expect(sendline.contacts.create({ email: 'ada@example.com' }, { idempotencyKey: 'k1' })).resolves.toEqual(first);
    const error = await thrown(sendline.contacts.create({ email: 'grace@example.com' }, { idempotencyKey: 'k1' }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).code).toBe('idempotency_key_reused');
  });

  it('waits out a concurrent duplicate (409 idempotency_key_in_use) and gets the stored answer', async () => {
    const server = await idempotentServer(1);
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const first = await sendline.contacts.create({ email: 'ada@example.com' }, { idempotencyKey: 'k2' });
    await expect(sendline.contacts.create({ email: 'ada@example.com' }, { idempotencyKey: 'k2' })).resolves.toEqual(first);
    expect(server.received.map((r) => r.headers['idempotency-key'])).toEqual(['k2', 'k2', 'k2']);
  });
});

describe('timeouts and connection errors', () => {
  const hang: Handler = () => {};

  it('throws APITimeoutError after the configured timeout on a hanging server', async () => {
    const server = await serve(hang);
    const started = Date.now();
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, timeout: 500, maxRetries: 0 }).contacts.get('ct_1'));
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toBe(`No answer from ${server.url}/api/v1/contacts/ct_1 within 500 ms`);
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(2_000);
  });

  it('times out a server that answers headers and then stalls the body', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":');
    });
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 }).contacts.get('ct_1', { timeout: 500 }));
    expect(error).toBeInstanceOf(APITimeoutError);
  });

  it('retries after a timeout', async () => {
    const server = await serve(hang, json(200, contact));
    await expect(new Sendline({ apiKey: KEY, baseUrl: server.url, timeout: 300 }).contacts.get('ct_1')).resolves.toEqual(contact);
    expect(server.received).toHaveLength(2);
  });

  it('throws APIConnectionError, with the cause chained, on a refused port', async () => {
    const server = await serve(json(200, contact));
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 }).contacts.get('ct_1'));
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error).not.toBeInstanceOf(APITimeoutError);
    expect((error as Error).message).toContain('ECONNREFUSED');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('stops at the caller’s AbortSignal without retrying', async () => {
    const server = await serve(hang);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 200);
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1', { signal: controller.signal }));
    expect((error as Error).message).toBe('stopped by the caller');
    expect(server.received).toHaveLength(1);
  });
});

describe('errors', () => {
  it.each([
    [400, 'validation_failed', ValidationError],
    [401, 'invalid_api_key', AuthenticationError],
    [403, 'insufficient_scope', PermissionDeniedError],
    [404, 'not_found', NotFoundError],
    [409, 'contact_exists', ConflictError],
    [422, 'idempotency_key_reused', ValidationError],
    [429, 'rate_limited', RateLimitError],
    [500, 'internal_error', ServerError],
    [418, 'teapot', SendlineError],
  ])('%i %s is a %o', async (status, code, errorClass) => {
    const server = await serve(problem(status, code, { errors: [{ pointer: '/email', detail: 'not an email' }] }, { 'x-request-id': 'req_42' }));
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 }).contacts.get('ct_1'));
    expect(error).toBeInstanceOf(errorClass);
    expect(error).toBeInstanceOf(SendlineError);
    const e = error as SendlineError;
    expect(e.constructor).toBe(errorClass);
    expect(e.name).toBe(errorClass.name);
    expect({ status: e.status, code: e.code, requestId: e.requestId }).toEqual({ status, code, requestId: 'req_42' });
    expect(e.message).toBe(`${status} ${code}: detail of ${code}`);
    expect(e.problem?.detail).toBe(`detail of ${code}`);
    if (e instanceof ValidationError) expect(e.errors).toEqual([{ pointer: '/email', detail: 'not an email' }]);
  });

  it('a 502 from a proxy, in HTML, is a ServerError without a problem', async () => {
    const server = await serve((_, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad gateway</html>');
    });
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 }).contacts.get('ct_1'));
    expect(error).toBeInstanceOf(ServerError);
    expect((error as ServerError).problem).toBeUndefined();
    expect((error as ServerError).message).toBe('502');
  });

  it('a 200 that is not JSON is a SendlineError, not retried as a connection error', async () => {
    const server = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>captive portal</html>');
    });
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.get('ct_1'));
    expect(error).toBeInstanceOf(SendlineError);
    expect(error).not.toBeInstanceOf(APIConnectionError);
    expect(server.received).toHaveLength(1);
    expect({ status: (error as SendlineError).status, code: (error as SendlineError).code }).toEqual({ status: 200, code: 'invalid_response' });
    expect((error as Error).message).toBe('200: the answer is not JSON');
  });

  it('a 201 with an empty body is an invalid_response; a 204 answers undefined', async () => {
    const server = await serve(
      (_, res) => {
        res.writeHead(201, { 'content-length': '0' });
        res.end();
      },
      (_, res) => {
        res.writeHead(204);
        res.end();
      },
    );
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const error = await thrown(sendline.contacts.create({ email: 'a@b.co' }));
    expect({ status: (error as SendlineError).status, code: (error as SendlineError).code }).toEqual({ status: 201, code: 'invalid_response' });
    await expect(sendline.contacts.delete('ct_1')).resolves.toBeUndefined();
  });

  it('names the URL it could not reach, without the query string', async () => {
    const server = await serve(json(200, contact));
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });
    const error = await thrown(sendline.contacts.list({ tag: 'secret-tag' }).firstPage());
    expect(error).toBeInstanceOf(APIConnectionError);
    expect((error as Error).message).toMatch(new RegExp(`^Could not reach ${server.url}/api/v1/contacts: .*ECONNREFUSED`));
    expect((error as Error).message).not.toContain('secret');
    const byId = await thrown(sendline.contacts.get('ct_1'));
    expect((byId as Error).message).toContain(`${server.url}/api/v1/contacts/ct_1:`);
  });
});

describe('credentials and header values', () => {
  it('trims the key: one read from a file with its newline works', async () => {
    const server = await serve(json(200, contact));
    await new Sendline({ apiKey: `  ${KEY}\n`, baseUrl: server.url }).contacts.get('ct_1');
    expect(server.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it.each(['sl_live_SECRETPART\r\nX-Injected: yes', 'sl_live_SECRETPART more', 'sl_live_SECRETPARTé', 'sl_live_SECRETPART\u0000'])(
    'refuses key %j with a ConfigurationError that does not quote it',
    (apiKey) => {
      let error: unknown;
      try {
        new Sendline({ apiKey, baseUrl: 'http://127.0.0.1:9' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(error).toBeInstanceOf(SendlineError);
      expect((error as SendlineError).status).toBeUndefined();
      expect(`${(error as Error).message} ${inspect(error)}`).not.toMatch(/SECRET|sl_live/);
    },
  );

  it('refuses a missing key or a bad base URL with a ConfigurationError', () => {
    const saved = process.env.SENDLINE_API_KEY;
    delete process.env.SENDLINE_API_KEY;
    try {
      expect(() => new Sendline()).toThrow(ConfigurationError);
      expect(() => new Sendline({ apiKey: ' \n' })).toThrow(ConfigurationError);
      expect(() => new Sendline({ apiKey: 42 as never })).toThrow(ConfigurationError);
      expect(() => new Sendline({ apiKey: KEY, baseUrl: 'not a url' })).toThrow(ConfigurationError);
      expect(() => new Sendline({ apiKey: KEY, baseUrl: 'ftp://mail.example.com' })).toThrow(ConfigurationError);
    } finally {
      if (saved !== undefined) process.env.SENDLINE_API_KEY = saved;
    }
  });

  it.each(['x\r\nX-Injected2: yes', '', ' leading', 'trailing ', 'k'.repeat(256), 'clé'])(
    'refuses Idempotency-Key %j locally: ValidationError, nothing sent, no retry',
    async (idempotencyKey) => {
      const server = await serve(json(201, contact));
      const started = Date.now();
      const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.create({ email: 'a@b.co' }, { idempotencyKey }));
      expect(Date.now() - started).toBeLessThan(200);
      expect(error).toBeInstanceOf(ValidationError);
      const e = error as ValidationError;
      expect({ status: e.status, code: e.code, pointers: e.errors.map((f) => f.pointer) }).toEqual({
        status: undefined,
        code: 'invalid_idempotency_key',
        pointers: ['header.Idempotency-Key'],
      });
      expect(server.received).toHaveLength(0);
    },
  );

  it('accepts an Idempotency-Key of 255 printable characters with inner spaces', async () => {
    const server = await serve(json(201, contact));
    const idempotencyKey = `a ${'k'.repeat(252)}z`;
    await new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.create({ email: 'a@b.co' }, { idempotencyKey });
    expect(server.received[0].headers['idempotency-key']).toBe(idempotencyKey);
  });
});

describe('configuration', () => {
  it.each(['', '/', '/api', '/api/', '/api/v1', '/api/v1/', '/v1'])('base URL %j is normalised to …/api/v1', async (suffix) => {
    const server = await serve(json(200, contact));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: `${server.url}${suffix}` });
    expect(sendline.baseUrl).toBe(`${server.url}/api/v1`);
    await sendline.contacts.get('ct_1');
    expect(server.received[0].url).toBe('/api/v1/contacts/ct_1');
  });

  it('keeps https:// and a path prefix as given', () => {
    expect(new Sendline({ apiKey: KEY, baseUrl: 'https://mail.example.com/sendline/api/' }).baseUrl).toBe('https://mail.example.com/sendline/api/v1');
    expect(new Sendline({ apiKey: KEY, baseUrl: 'http://10.0.0.5:3000' }).baseUrl).toBe('http://10.0.0.5:3000/api/v1');
  });

  it('refuses a missing or empty key at construction, naming the fix', () => {
    const saved = process.env.SENDLINE_API_KEY;
    delete process.env.SENDLINE_API_KEY;
    try {
      expect(() => new Sendline()).toThrow(/SENDLINE_API_KEY/);
      expect(() => new Sendline({ apiKey: '' })).toThrow(ConfigurationError);
    } finally {
      if (saved !== undefined) process.env.SENDLINE_API_KEY = saved;
    }
  });

  it('reads SENDLINE_API_KEY and SENDLINE_BASE_URL', async () => {
    const server = await serve(json(200, contact));
    const saved = { key: process.env.SENDLINE_API_KEY, url: process.env.SENDLINE_BASE_URL };
    Object.assign(process.env, { SENDLINE_API_KEY: KEY, SENDLINE_BASE_URL: server.url });
    try {
      await new Sendline().contacts.get('ct_1');
    } finally {
      for (const [name, value] of [
        ['SENDLINE_API_KEY', saved.key],
        ['SENDLINE_BASE_URL', saved.url],
      ] as const)
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
    expect(server.received[0].headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('keeps the key out of inspect, JSON, toString and error messages', async () => {
    const server = await serve(problem(401, 'invalid_api_key'));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url, maxRetries: 0 });
    const error = await thrown(sendline.contacts.get('ct_1'));
    const shown = [inspect(sendline, { depth: 10, showHidden: true }), JSON.stringify(sendline), inspect(error, { depth: 10 }), String(error)];
    for (const text of shown) expect(text).not.toContain('secret');
  });

  it('reports the version package.json has', () => {
    const manifest = JSON.parse(readFileSync(new URL('../../sdk/node/package.json', import.meta.url), 'utf8'));
    expect(VERSION).toBe(manifest.version);
  });

  it('logs in with email and password and then uses the session token', async () => {
    const server = await serve(json(200, { token: 'jwt.token.here', expires_at: '2026-11-24T00:00:00Z' }), json(200, contact));
    const sendline = await Sendline.login({ baseUrl: server.url, email: 'ada@example.com', password: 'pw' });
    await sendline.contacts.get('ct_1');
    expect(server.received[0].headers.authorization).toBeUndefined();
    expect(JSON.parse(server.received[0].body.toString())).toEqual({ email: 'ada@example.com', password: 'pw' });
    expect(server.received[1].headers.authorization).toBe('Bearer jwt.token.here');
  });
});

describe('calls', () => {
  it('refuses a missing, empty or blank path id with a ValidationError before sending anything', async () => {
    const server = await serve(json(200, contact));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const calls: [string, () => Promise<unknown>][] = [
      // @ts-expect-error the id is required
      ['id', () => sendline.contacts.get()],
      ['id', () => sendline.contacts.get('')],
      ['id', () => sendline.contacts.delete('  ')],
      ['id', () => sendline.contacts.get(null as never)],
      ['id', () => sendline.contacts.activity('').firstPage()],
      ['delivery_id', () => sendline.webhooks.retryDelivery('wh_1', '')],
      ['id', () => sendline.request('Contacts_get', { path: { id: '' } })],
    ];
    for (const [name, call] of calls) {
      const error = await thrown(call());
      expect(error).toBeInstanceOf(ValidationError);
      const e = error as ValidationError;
      expect({ status: e.status, code: e.code, errors: e.errors.map((f) => f.pointer) }).toEqual({ status: undefined, code: 'validation_failed', errors: [`path.${name}`] });
    }
    expect(server.received).toHaveLength(0);
  });

  it('sends Dates as RFC 3339 in queries and bodies', async () => {
    const server = await serve(json(200, { data: [], next_cursor: null }), json(201, { id: 'cv_1' }));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const at = new Date('2026-11-23T06:00:00Z');
    for await (const _ of sendline.contacts.list({ created_after: at, tag: 'vip' }));
    await sendline.conversions.create({ contact_id: 'ct_1', type: 'signup', occurred_at: at });
    expect(new URL(server.received[0].url, 'http://x').searchParams.get('created_after')).toBe('2026-11-23T06:00:00.000Z');
    expect(JSON.parse(server.received[1].body.toString()).occurred_at).toBe('2026-11-23T06:00:00.000Z');
  });

  it('pages lazily through every item, following next_cursor', async () => {
    const pages = [
      { data: [{ email: 'a@x.co' }, { email: 'b@x.co' }], next_cursor: 'c2' },
      { data: [{ email: 'c@x.co' }], next_cursor: 'c3' },
      { data: [{ email: 'd@x.co' }], next_cursor: null },
    ];
    const server = await serve(...pages.map((page) => json(200, page)));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const emails: string[] = [];
    for await (const c of sendline.contacts.list({ tag: 'vip', limit: 2 })) {
      emails.push(c.email);
      if (emails.length === 1) expect(server.received).toHaveLength(1);
    }
    expect(emails).toEqual(['a@x.co', 'b@x.co', 'c@x.co', 'd@x.co']);
    expect(server.received.map((r) => r.url)).toEqual(['/api/v1/contacts?tag=vip&limit=2', '/api/v1/contacts?tag=vip&limit=2&cursor=c2', '/api/v1/contacts?tag=vip&limit=2&cursor=c3']);
    // One page only: the server's last answer, with its cursor.
    await expect(sendline.contacts.list().firstPage()).resolves.toEqual(pages[2]);
    expect(server.received).toHaveLength(4);
  });

  it('uploads a CSV file from a path as multipart, options first, file streamed as is', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sendline-sdk-csv-'));
    try {
      const file = path.join(dir, 'people.csv');
      const csv = `E-mail,first_name\n${Array.from({ length: 20_000 }, (_, i) => `p${i}@example.com,P${i}`).join('\n')}\n`;
      writeFileSync(file, csv);
      const server = await serve(json(202, { id: 'imp_1', status: 'queued' }));
      const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
      const started = await sendline.contacts.importCsv({ path: file }, { mode: 'create_only', tags: ['a', 'b'], mapping: { 'E-mail': 'email' } });
      expect(started.id).toBe('imp_1');
      const request = server.received[0];
      expect(request.url).toBe('/api/v1/contacts/import');
      expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(request.headers['idempotency-key']).toBeTruthy();
      const form = await new Response(request.body, { headers: { 'content-type': request.headers['content-type']! } }).formData();
      expect([...form.keys()]).toEqual(['mode', 'tags', 'mapping', 'file']);
      expect(form.get('mode')).toBe('create_only');
      expect(form.get('tags')).toBe('a,b');
      expect(form.get('mapping')).toBe('E-mail:email');
      const uploaded = form.get('file') as File;
      expect(uploaded.name).toBe('people.csv');
      expect(await uploaded.text()).toBe(csv);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('uploads CSV text and bytes; wait() polls the import until it has finished', async () => {
    const server = await serve(
      json(202, { id: 'imp_1', status: 'queued' }),
      json(202, { id: 'imp_2', status: 'queued' }),
      json(200, { id: 'imp_2', status: 'running' }),
      json(200, { id: 'imp_2', status: 'completed', created: 1 }),
    );
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    await sendline.contacts.importCsv('email\na@x.co\n');
    const started = await sendline.contacts.importCsv(new TextEncoder().encode('email\nb@x.co\n'));
    const done = await sendline.contactImports.wait(started.id, { interval: 50 });
    expect(done).toMatchObject({ status: 'completed', created: 1 });
    expect(server.received.map((r) => `${r.method} ${r.url}`).slice(2)).toEqual(['GET /api/v1/contacts/import/imp_2', 'GET /api/v1/contacts/import/imp_2']);
  });

  it('names the path of a CSV file it cannot open', async () => {
    const server = await serve(json(202, { id: 'imp_1', status: 'queued' }));
    const missing = path.join(tmpdir(), `sendline-missing-${randomUUID()}.csv`);
    const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contacts.importCsv({ path: missing }));
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(missing);
    expect((error as Error).message).toContain('ENOENT');
    expect((error as Error).cause).toBeDefined();
    expect(server.received).toHaveLength(0);
  });

  it('wait() gives up after ten minutes by default, naming the import and its status', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const start = Date.now();
      const server = await serve(
        (req, res, index) => {
          // Each poll moves the clock: 5 min, then 9 min 59 s, then 10 min 1 s after the start.
          vi.setSystemTime(start + [300_000, 599_000, 601_000][Math.min(index, 2)]);
          json(200, { id: 'imp_7', status: 'queued' })(req, res, index);
        },
      );
      const error = await thrown(new Sendline({ apiKey: KEY, baseUrl: server.url }).contactImports.wait('imp_7', { interval: 10 }));
      expect(error).toBeInstanceOf(APITimeoutError);
      expect((error as Error).message).toBe('import imp_7 is still queued after 600000 ms');
      expect(server.received).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('the operations layer answers status, typed data and headers', async () => {
    const server = await serve(json(200, contact, { 'x-request-id': 'req_1' }));
    const answer = await new Sendline({ apiKey: KEY, baseUrl: server.url }).request('Contacts_get', { path: { id: randomUUID() } });
    expect(answer.status).toBe(200);
    expect(answer.data.email).toBe('ada@example.com');
    expect(answer.headers.get('x-request-id')).toBe('req_1');
  });
});

describe('webhooks', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const webhook = new Webhook(secret);
  const now = new Date();
  const headersFor = (body: string | Uint8Array, at = now) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhook.sign('evt_1', at, body),
  });

  it('signs as the Standard Webhooks reference library does, with or without the whsec_ prefix', () => {
    const body = '{"id":"evt_1","type":"webhook.test"}';
    expect(webhook.sign('evt_1', now, body)).toBe(new ReferenceWebhook(secret).sign('evt_1', now, body));
    expect(new Webhook(secret.slice('whsec_'.length)).sign('evt_1', now, body)).toBe(webhook.sign('evt_1', now, body));
  });

  it('returns an event of an unknown type as it is', () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'contact.teleported', created_at: now.toISOString(), account_id: 'acc_1', data: { where: 'Mars' } });
    expect(webhook.verify(body, headersFor(body))).toMatchObject({ type: 'contact.teleported', data: { where: 'Mars' } });
  });

  it.each<[string, () => unknown]>([
    ['no headers', () => webhook.verify('{}', null as never)],
    ['a payload of another type', () => webhook.verify(42 as never, headersFor('42'))],
    ['a malformed signature', () => webhook.verify('{}', { ...headersFor('{}'), 'webhook-signature': 'v1,%%%not base64' })],
    ['a malformed timestamp', () => webhook.verify('{}', { ...headersFor('{}'), 'webhook-timestamp': '1e9' })],
    ['a timestamp ten minutes ahead', () => webhook.verify('{}', headersFor('{}', new Date(now.getTime() + 10 * 60_000)))],
    ['a signed body that is not JSON', () => webhook.verify('not json', headersFor('not json'))],
    ['a signed body that is not UTF-8', () => webhook.verify(new Uint8Array([0xff, 0xfe]), headersFor(new Uint8Array([0xff, 0xfe])))],
    ['a signed JSON that is not an event', () => webhook.verify('[1]', headersFor('[1]'))],
  ])('throws WebhookVerificationError for %s', (_, verify) => {
    expect(verify).toThrow(WebhookVerificationError);
  });

  it.each(['whsec_', '', 'not base64!!', 'whsec_abc', 'whsec_MfKQ9r8G KYqrTwjUPD8ILPZIo2LaLaSw'])('refuses secret %j at construction', (bad) => {
    expect(() => new Webhook(bad)).toThrow(new WebhookVerificationError('webhook secret is not a whsec_ base64 secret'));
  });

  it.each<[string, string, () => unknown]>([
    ['missing webhook-id, webhook-timestamp or webhook-signature header', 'no signature', () => webhook.verify('{}', { 'webhook-id': 'evt_1', 'webhook-timestamp': '1' })],
    ['webhook timestamp is not a number', 'a malformed timestamp', () => webhook.verify('{}', { ...headersFor('{}'), 'webhook-timestamp': '1e9' })],
    ['webhook timestamp is more than 300 s from now', 'an old timestamp', () => webhook.verify('{}', headersFor('{}', new Date(now.getTime() - 301_000)))],
    ['no webhook signature matches', 'another body', () => webhook.verify('{"a":1}', headersFor('{}'))],
    ['webhook body is not a JSON event', 'a body that is not JSON', () => webhook.verify('nope', headersFor('nope'))],
    ['webhook body is not a JSON event', 'JSON without the envelope', () => webhook.verify('{"type":"x"}', headersFor('{"type":"x"}'))],
  ])('says "%s" for %s', (message, _, verify) => {
    expect(verify).toThrow(new WebhookVerificationError(message));
  });

  it('answers a known event typed, and one whose payload does not fit its type as an UnknownEvent', () => {
    const envelope = { id: 'evt_1', created_at: now.toISOString(), account_id: 'acc_1' };
    const full = JSON.stringify({
      ...envelope,
      type: 'webhook.test',
      data: { webhook_id: 'wh_1', message: 'hello' },
    });
    const event = webhook.verify(full, headersFor(full));
    expect(event).not.toBeInstanceOf(UnknownEvent);
    if (!(event instanceof UnknownEvent) && event.type === 'webhook.test') expect(event.data.message).toBe('hello');
    const partial = JSON.stringify({ ...envelope, type: 'contact.created', data: { contact: { id: 'ct_1' } } });
    const unfit = webhook.verify(partial, headersFor(partial));
    expect(unfit).toBeInstanceOf(UnknownEvent);
    expect(JSON.parse(JSON.stringify(unfit))).toEqual(JSON.parse(partial));
    const newer = JSON.stringify({ ...envelope, type: 'contact.teleported', data: {} });
    expect(webhook.verify(newer, headersFor(newer))).toBeInstanceOf(UnknownEvent);
  });

  it('signs with a timestamp in seconds or a Date, and refuses milliseconds', () => {
    const body = '{}';
    const seconds = Math.floor(now.getTime() / 1000);
    expect(webhook.sign('evt_1', seconds, body)).toBe(webhook.sign('evt_1', now, body));
    expect(() => webhook.sign('evt_1', now.getTime(), body)).toThrow(/milliseconds/);
    expect(() => webhook.sign('evt_1', now.getTime(), body)).toThrow(WebhookVerificationError);
  });
});

describe('emails.send', () => {
  it('takes plain and named addresses mixed in one list (typed so), and sends them as given', async () => {
    const server = await serve(json(202, { data: [{ id: 'em_1', email: 'ada@example.com', kind: 'to', status: 'queued', reason: null }] }));
    const sendline = new Sendline({ apiKey: KEY, baseUrl: server.url });
    const sent = await sendline.emails.send({
      from: 'receipts@shop.example',
      to: ['ada@example.com', { email: 'bob@example.com', name: 'Bob' }],
      cc: [{ email: 'dan@example.com' }, 'eve@example.com'],
      bcc: ['fay@example.com'],
      subject: 'Receipt',
      text: 'Thanks!',
    });
    expect(sent.data[0].id).toBe('em_1');
    expect(JSON.parse(server.received[0].body.toString())).toMatchObject({
      from: 'receipts@shop.example',
      to: ['ada@example.com', { email: 'bob@example.com', name: 'Bob' }],
      cc: [{ email: 'dan@example.com' }, 'eve@example.com'],
      bcc: ['fay@example.com'],
    });
  });
});

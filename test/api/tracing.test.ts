import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, spawnTestServer, waitFor } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: Record<string, unknown> }[];
}

// An OTLP/HTTP collector on loopback: it keeps every span it is sent (JSON, as the exporter posts it).
const spans: Span[] = [];
let collector: Server;
let server: ServerProcess;

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const sent = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
        for (const resource of sent.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const { port } = collector.address() as { port: number };
  // OTEL_BSP_SCHEDULE_DELAY: spans are exported within 200 ms rather than 5 s (the SDK reads it).
  server = await spawnTestServer({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '200' });
});

afterAll(async () => {
  server?.proc.kill('SIGKILL');
  await new Promise((resolve) => collector.close(resolve));
});

/** Whether `span` descends from `ancestor` in the spans received. */
function descends(span: Span, ancestor: Span): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at: Span | undefined = span; at; at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined) {
    if (at.spanId === ancestor.spanId) return true;
  }
  return false;
}

describe('tracing over OTLP/HTTP', () => {
  it("exports a request's span with its database queries as children, and logs its trace id", async () => {
    const account = await newAccount(server.url, 'traced');
    const res = await account.api('GET', '/api/contacts?limit=5');
    expect(res.status).toBe(200);
    const request = await waitFor(() => spans.find((s) => s.name === 'GET /api/v1/contacts'));
    const queries = await waitFor(() => {
      const found = spans.filter((s) => s.name.startsWith('pg.query') && s.traceId === request.traceId);
      return found.length ? found : undefined;
    });
    for (const query of queries) expect(descends(query, request)).toBe(true);
    expect(queries.some((q) => JSON.stringify(q.attributes).includes('contacts'))).toBe(true);
    // Nothing a request carried reaches the collector: the query string, nor the values the ORM
    // writes into its SQL (the sign-up inserted the address).
    expect(request.attributes.find((a) => a.key === 'url.query')?.value).toEqual({ stringValue: '[redacted]' });
    // A refusal's message quotes the address: the span keeps the error's type only.
    const contact = { email: 'twice@traced.example' };
    expect((await account.api('POST', '/api/contacts', { body: contact })).status).toBe(201);
    expect((await account.api('POST', '/api/contacts', { body: contact })).status).toBe(409);
    await waitFor(() => spans.filter((s) => s.name === 'POST /api/v1/contacts').length === 2);
    await waitFor(() => spans.some((s) => s.name === 'POST /api/v1/auth/register'));
    expect(JSON.stringify(spans)).not.toContain(contact.email);
    expect(JSON.stringify(spans)).not.toContain(account.email);
    expect(JSON.stringify(spans)).not.toContain(account.token);

    const line = server
      .output()
      .split('\n')
      .find((l) => l.includes('"msg":"request"') && l.includes('"path":"/api/v1/contacts"'));
    expect(JSON.parse(line!)).toMatchObject({ trace_id: request.traceId, status: 200 });
  });

  it('traces jobs with their queries, and nothing of the queues polling outside them', async () => {
    const account = await newAccount(server.url, 'traced-job');
    const imported = await account.api('POST', '/api/contacts/import', { raw: 'email\na@traced.example\n', headers: { 'content-type': 'text/csv' } });
    expect(imported.status).toBe(202);
    const job = await waitFor(() => spans.find((s) => s.name === 'job contacts.import'));
    await waitFor(() => spans.some((s) => s.traceId === job.traceId && s.name.startsWith('pg.query') && descends(s, job)));
    // Every query span belongs to a request, a job, a batch or a delivery.
    const roots = spans.filter((s) => !s.parentSpanId);
    expect(roots.filter((s) => s.name.startsWith('pg')).map((s) => s.name)).toEqual([]);
  });
});

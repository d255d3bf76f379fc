import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Sendline } from '../../server/start.ts';
import { client, newAccount, startTestServer, type Answer } from '../helpers.ts';

let sendline: Sendline;

beforeAll(async () => {
  sendline = await startTestServer();
});
afterAll(() => sendline.stop());

/** The status and headers of a refused WebSocket upgrade. */
const upgradeRefusal = (url: string, headers: Record<string, string>) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const ws = new WebSocket(url.replace('http://', 'ws://'), { headers });
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
  });

describe('hardening headers', () => {
  it('every kind of answer says nosniff and may not be framed', async () => {
    const account = await newAccount(sendline.url, 'headers');
    const anon = client(sendline.url);
    const answers: [string, Answer][] = [
      ['health', await anon('GET', '/healthz')],
      ['API answer', await account.api('GET', '/api/auth/me')],
      ['401 problem', await anon('GET', '/api/auth/me')],
      ['404 problem', await anon('GET', '/api/no-such-route')],
      ['400 problem', await anon('POST', '/api/auth/login', { body: { email: 'x' } })],
      ['contract', await anon('GET', '/api/openapi.json')],
      ['reference', await anon('GET', '/docs')],
      ['open pixel', await anon('GET', '/t/o/not-a-token.gif')],
      ['click 404 page', await anon('GET', '/t/c/not-a-token')],
      ['unsubscribe 404 page', await anon('GET', '/u/not-a-token')],
    ];
    for (const [what, res] of answers) {
      expect(res.headers.get('x-content-type-options'), what).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), what).toBe('DENY');
      expect(res.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
    }
    // Pages keep their own policy, with framing forbidden in it.
    for (const [what, res] of answers.filter(([w]) => w === 'reference' || w.endsWith('page'))) {
      expect(res.headers.get('content-security-policy'), what).toMatch(/default-src '(self|none)'.*frame-ancestors 'none'/);
    }
    const refused = await upgradeRefusal(`${sendline.url}/api/ws`, {});
    expect(refused.status).toBe(401);
    expect(refused.headers['x-content-type-options']).toBe('nosniff');
  });
});

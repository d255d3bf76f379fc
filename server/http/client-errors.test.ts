import { createServer } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { answerClientErrors } from './client-errors.ts';

describe('answers to requests Node refuses', () => {
  it('say 408 with a problem document to a client too slow to send its headers', async () => {
    const server = createServer({ connectionsCheckingInterval: 50 }, (_req, res) => res.end('ok'));
    server.headersTimeout = 300;
    server.requestTimeout = 300;
    answerClientErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.address() as { port: number }).port, '127.0.0.1');
      socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
      await new Promise((resolve) => socket.on('close', resolve));
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(answer).toContain('X-Content-Type-Options: nosniff');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, code: 'request_timeout' });
    } finally {
      server.close();
    }
  });
});

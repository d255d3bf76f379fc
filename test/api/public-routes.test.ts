import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenSigner } from '../../server/tracked-links/tokens.ts';
import { newAccount, TEST_KEY_RING, waitFor, spawnTestServer } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { SmtpSink } from '../smtp-sink.ts';

const PUBLIC_URL = 'https://mail.example.test';
let server: ServerProcess;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await new SmtpSink().start();
  // Its own process: a crash must show as a dead server, not take the test runner with it.
  server = await spawnTestServer({ SMTP_URL: sink.url, PUBLIC_URL, TRACKING_FLUSH_MS: '50' }, { keepOutput: false });
});
afterAll(async () => {
  if (server.proc.exitCode === null) {
    server.proc.kill('SIGTERM');
    await server.exited;
  }
  await sink.stop();
});

const alive = async () => {
  expect(server.proc.exitCode).toBeNull();
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
};

/** A request as raw bytes on a socket: what `fetch` would refuse to send (bytes above 0x7F in the path, broken framing). */
function rawRequest(bytes: Buffer): Promise<string> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', () => resolve(answer));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

const forged = (parts: unknown) => `${Buffer.from(JSON.stringify(parts)).toString('base64url')}.${randomBytes(16).toString('base64url')}`;

describe('public routes', () => {
  it('redirects a clicked link with characters above U+00FF in its URL, percent-encoded', async () => {
    const account = await newAccount(server.url, 'unicode-links');
    const contact = await account.api('POST', '/api/contacts', { body: { email: 'lukasz@example.com', first_name: 'Łukasz', tags: ['pl'] } });
    expect(contact.status).toBe(201);
    const { body: campaign } = await account.api('POST', '/api/campaigns', {
      body: {
        name: 'Unicode links',
        subject: 'Cześć',
        from_email: 'news@shop.example',
        content:
          '<p>Hi</p><a href="https://shop.example/hi?name={{ first_name }}">Hi</a> <a href="https://example.com/☃">Snow</a> <a href="https://bücher.example/ä">Books</a>',
        audience: { tags_any: ['pl'] },
      },
    });
    expect((await account.api('POST', `/api/campaigns/${campaign.id}/send`)).status).toBe(200);
    await waitFor(async () => (await account.api('GET', `/api/campaigns/${campaign.id}`)).body.status === 'completed');
    const mail = sink.to('lukasz@example.com').at(-1)!;
    const clicks = [...String(mail.mail.html).matchAll(/href="https:\/\/mail\.example\.test(\/t\/c\/[^"]+)"/g)].map((m) => m[1]);
    expect(clicks).toHaveLength(3);
    const locations = [];
    for (const click of clicks) {
      const res = await fetch(server.url + click, { redirect: 'manual' });
      expect(res.status).toBe(302);
      locations.push(res.headers.get('location'));
    }
    expect(locations).toEqual(['https://shop.example/hi?name=%C5%81ukasz', 'https://example.com/%E2%98%83', 'https://xn--bcher-kva.example/%C3%A4']);

    // Messages already mailed carry their links as they were written; they keep working.
    const signer = new TokenSigner(TEST_KEY_RING);
    const messageId = mail.mail.headers.get('x-sendline-message') as string;
    const old = (url: string) => fetch(`${server.url}/t/c/${signer.sign({ kind: 'click', messageId, link: 0, url })}`, { redirect: 'manual' });
    const res = await old('https://example.com/☃?name=Łukasz\u0000#ß');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://example.com/%E2%98%83?name=%C5%81ukasz%00#%C3%9F');
    expect((await old('https://exa mple.com/☃')).status).toBe(404);
    await alive();
  });

  it('answers hostile tokens, URLs, methods and headers with 4xx, and the process lives', async () => {
    const long = 'A'.repeat(6000);
    const tokens = [
      '',
      '.',
      '..',
      'a.b',
      'a.b.c',
      '%00',
      '%FF%FE',
      '%E2%98%83',
      '%',
      '%%',
      '..%2F..%2Fetc%2Fpasswd',
      long,
      `${long}.${long}`,
      randomBytes(48).toString('base64url'),
      `${randomBytes(40).toString('base64url')}.${randomBytes(16).toString('base64url')}`,
      forged(['c', 'msg_x', '0', 'https://evil.example/☃']),
      forged(['c', 'msg_x', 'NaN', 'javascript:alert(1)']),
      forged(['u', 'msg_x']),
      forged(['o', null]),
      forged({ __proto__: { polluted: true } }),
      `${Buffer.from('not json').toString('base64url')}.AAAA`,
      `${randomBytes(8).toString('base64url')}.${'A'.repeat(22)}`,
    ];
    const prefixes = ['/t/o/', '/t/c/', '/u/'];
    const headerSets: Record<string, string>[] = [
      {},
      { 'user-agent': 'x'.repeat(8000), 'x-forwarded-for': 'not-an-ip, ::::, 999.1.1.1, 2001:db8::1%eth0' },
      { 'x-forwarded-for': Array.from({ length: 200 }, (_, i) => `10.0.${i % 256}.1`).join(', '), 'content-type': 'multipart/form-data' },
      { 'content-type': 'multipart/form-data; boundary=' + 'b'.repeat(70), cookie: 'a=%FF' },
      { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16', 'accept-language': 'xx' },
    ];
    const bodies = [
      undefined,
      'List-Unsubscribe=One-Click',
      '%%%=%%%&List-Unsubscribe=%E2%98',
      'x'.repeat(10_000),
      '--bbb\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--bbb--',
    ];
    const statuses = new Set<number>();
    for (const prefix of prefixes) {
      for (const token of tokens) {
        for (const suffix of ['', '.gif', '?u=%00&v=%E2%98%83', '/extra']) {
          for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS']) {
            const headers = headerSets[(token.length + method.length) % headerSets.length];
            const body = method === 'POST' || method === 'PUT' ? bodies[(token.length + suffix.length) % bodies.length] : undefined;
            const res = await fetch(server.url + prefix + token + suffix, { method, headers, body, redirect: 'manual' });
            await res.arrayBuffer();
            statuses.add(res.status);
            if (res.status >= 500) throw new Error(`${method} ${prefix}${token.slice(0, 40)}${suffix} answered ${res.status}`);
          }
        }
      }
    }
    // Bytes above 0x7F and control characters straight in the request line and headers.
    const rawAnswers = await Promise.all(
      [
        Buffer.concat([
          Buffer.from('GET /t/c/'),
          Buffer.from([0xc5, 0x81, 0xff, 0xfe, 0x80]),
          Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
        ]),
        Buffer.concat([Buffer.from('GET /u/'), Buffer.from('☃'), Buffer.from(' HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')]),
        Buffer.concat([
          Buffer.from('GET /t/o/x.gif HTTP/1.1\r\nHost: x\r\nUser-Agent: '),
          Buffer.from([0xff, 0x00, 0x7f]),
          Buffer.from('\r\nConnection: close\r\n\r\n'),
        ]),
        Buffer.from('POST /u/a.b HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=z\r\nContent-Length: 100\r\n\r\n--z\r\nhalf'),
        Buffer.from('POST /u/a.b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffff\r\nabc'),
        Buffer.from('GET /t/c/a.b HTTP/1.1\r\nHost: x\r\n' + 'X-Pad: y\r\n'.repeat(2000) + '\r\n'),
      ].map(rawRequest),
    );
    for (const answer of rawAnswers) expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
    expect([...statuses].every((s) => s < 500)).toBe(true);
    await alive();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Sendline } from '../../server/start.ts';
import { client, newAccount, newApiKey, startTestServer, type TestAccount, spawnTestServer } from '../helpers.ts';
import type { ServerProcess } from '../process.ts';
import { Transactions } from '../../server/db/transactions.ts';
import { append } from '../../server/events/outbox.ts';
import type { PendingEvent } from '../../server/events/types.ts';

/** Appends `contact.updated` events with these payloads, as the server's writers do. */
const appendEvents = (server: Sendline, accountId: string, payloads: Record<string, unknown>[]) =>
  new Transactions(server.pool).run((tx) =>
    append(
      tx,
      accountId,
      payloads.map((data) => ({ type: 'contact.updated', data }) as unknown as PendingEvent),
    ),
  );

let sendline: Sendline;
beforeAll(async () => {
  // Pings every second: soon enough for the expiry test, long enough for a loaded machine to answer.
  sendline = await startTestServer({ WS_PING_MS: '1000' });
});
afterAll(() => sendline.stop());

/** A real WebSocket client that keeps every message it receives. */
class Socket {
  readonly messages: any[] = [];
  readonly ws: WebSocket;
  readonly closed: Promise<{ code: number }>;

  constructor(url: string, options: WebSocket.ClientOptions = {}) {
    this.ws = new WebSocket(url, options);
    this.ws.on('message', (data: Buffer) => this.messages.push(JSON.parse(data.toString())));
    this.closed = new Promise((resolve) => this.ws.on('close', (code) => resolve({ code })));
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  async next(predicate: (m: any) => boolean, timeoutMs = 10_000): Promise<any> {
    const started = Date.now();
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() - started > timeoutMs) throw new Error(`no matching message in ${JSON.stringify(this.messages).slice(0, 500)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.ws.close();
  }
}

const wsUrl = (base: string, p = '/api/ws') => base.replace('http://', 'ws://') + p;

async function subscribed(base: string, headers: Record<string, string>, events: string[], p?: string): Promise<Socket> {
  const socket = new Socket(wsUrl(base, p), { headers });
  await socket.opened();
  socket.send({ type: 'subscribe', events });
  await socket.next((m) => m.type === 'subscribed');
  return socket;
}

const refusal = (url: string, options: WebSocket.ClientOptions = {}) =>
  new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(url, options);
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('error', () => {});
  });

describe('the event socket', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newAccount(sendline.url, 'sockets');
  });

  it('refuses an upgrade without a valid credential, and API keys in the URL', async () => {
    expect(await refusal(wsUrl(sendline.url))).toBe(401);
    expect(await refusal(wsUrl(sendline.url), { headers: { authorization: 'Bearer nope' } })).toBe(401);
    const { key } = await newApiKey(account, sendline.url);
    expect(await refusal(`${wsUrl(sendline.url)}?token=${key.key}`)).toBe(401);
  });

  it("streams the account's matching events in the envelope, by JWT, API key or ?token=", async () => {
    const { key } = await newApiKey(account, sendline.url);
    const byJwt = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.*']);
    const byKey = await subscribed(sendline.url, { 'x-api-key': key.key }, ['contact.created'], '/v1/ws');
    const byQuery = new Socket(`${wsUrl(sendline.url, '/api/v1/ws')}?token=${account.token}`);
    await byQuery.opened();
    byQuery.send({ type: 'subscribe', events: ['campaign.*'] });
    await byQuery.next((m) => m.type === 'subscribed');

    const { body: contact } = await account.api('POST', '/api/contacts', { body: { email: 'socket@example.com' } });
    for (const socket of [byJwt, byKey]) {
      const event = await socket.next((m) => m.type === 'contact.created');
      expect(event).toEqual({
        id: expect.stringMatching(/^evt_/),
        type: 'contact.created',
        created_at: expect.any(String),
        account_id: account.accountId,
        data: expect.objectContaining({ contact: expect.objectContaining({ id: contact.id }) }),
      });
    }
    await account.api('PATCH', `/api/contacts/${contact.id}`, { body: { first_name: 'Sock' } });
    await byJwt.next((m) => m.type === 'contact.updated');
    const { body: campaign } = await account.api('POST', '/api/campaigns', {
      body: { name: 'S', subject: 'S', from_email: 'a@shop.example', content: '<p>x</p>' },
    });
    await account.api('POST', `/api/campaigns/${campaign.id}/cancel`);
    await byQuery.next((m) => m.type === 'campaign.cancelled');
    expect(byKey.messages.some((m) => m.type === 'contact.updated')).toBe(false);
    expect(byQuery.messages.some((m) => m.type?.startsWith('contact.'))).toBe(false);
    for (const s of [byJwt, byKey, byQuery]) s.close();
  });

  it("never sends another account's events", async () => {
    const other = await newAccount(sendline.url, 'socket-other');
    const socket = await subscribed(sendline.url, { authorization: `Bearer ${other.token}` }, ['*']);
    await account.api('POST', '/api/contacts', { body: { email: 'not-yours@example.com' } });
    await other.api('POST', '/api/contacts', { body: { email: 'yours@example.com' } });
    const mine = await socket.next((m) => m.type === 'contact.created');
    expect(mine.data.contact.email).toBe('yours@example.com');
    await new Promise((r) => setTimeout(r, 200));
    expect(socket.messages.filter((m) => m.account_id && m.account_id !== other.accountId)).toEqual([]);
    socket.close();
  });

  it('replays missed events on resume', async () => {
    const first = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.created']);
    await account.api('POST', '/api/contacts', { body: { email: 'seen@example.com' } });
    const seen = await first.next((m) => m.type === 'contact.created');
    first.close();
    // A probe sees the last of them live: every announcement is handled before the resuming
    // socket subscribes, so none of them reaches it live as well as in the replay.
    const probe = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.created']);
    await account.api('POST', '/api/contacts', { body: { email: 'missed-1@example.com' } });
    await account.api('PATCH', '/api/contacts/' + seen.data.contact.id, { body: { first_name: 'Skipped' } });
    await account.api('POST', '/api/contacts', { body: { email: 'missed-2@example.com' } });
    await probe.next((m) => m.type === 'contact.created' && m.data.contact.email === 'missed-2@example.com');
    probe.close();
    const again = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.created']);
    again.send({ type: 'resume', after: seen.id });
    const resumed = await again.next((m) => m.type === 'resumed');
    const replayed = again.messages.filter((m) => m.type === 'contact.created').map((m) => m.data.contact.email);
    expect(replayed).toEqual(['missed-1@example.com', 'missed-2@example.com']);
    // Counted as sent: the contact.updated between them was filtered out.
    expect(resumed.replayed).toBe(2);
    again.send({ type: 'resume', after: 'evt_unknown' });
    expect(await again.next((m) => m.type === 'error')).toMatchObject({ code: 'unknown_event' });
    again.close();
  });

  it('sends events in the order they were written, however many each announcement brings', async () => {
    const socket = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.updated']);
    // A large batch, then one event: fetched side by side, the one would come back first.
    const write = (count: number, batch: string) =>
      appendEvents(
        sendline,
        account.accountId,
        Array.from({ length: count }, () => ({ batch, filler: 'x'.repeat(500) })),
      );
    await write(5000, 'large');
    await write(1, 'last');
    await socket.next((m) => m.data?.batch === 'last', 20_000);
    const batches = socket.messages.filter((m) => m.type === 'contact.updated').map((m) => m.data.batch);
    expect(batches.length).toBe(5001);
    expect(batches.indexOf('last')).toBe(5000);
    socket.close();
  });

  it('answers bad messages with an error and keeps the connection', async () => {
    const socket = new Socket(wsUrl(sendline.url), { headers: { authorization: `Bearer ${account.token}` } });
    await socket.opened();
    socket.ws.send('not json');
    socket.send({ type: 'subscribe', events: ['email.exploded'] });
    socket.send({ type: 'dance' });
    socket.send({ type: 'ping' });
    await socket.next((m) => m.type === 'pong');
    expect(socket.messages.filter((m) => m.type === 'error').map((m) => m.code)).toEqual(['invalid_json', 'invalid_subscription', 'unknown_message']);
    socket.close();
  });

  it('drops a client that stops answering pings', async () => {
    const socket = new Socket(wsUrl(sendline.url), { headers: { authorization: `Bearer ${account.token}` }, autoPong: false });
    await socket.opened();
    const { code } = await socket.closed;
    expect(code).toBe(1006);
  });
});

describe('slow consumers', () => {
  // 20,000 events appended within the 5 s a closed socket is given: more than the cluster's
  // nodes on two cores write in that time, and what it tests is the process's buffering alone.
  it.skipIf(process.env.SENDLINE_TEST_ON_CLUSTER)('are disconnected with close code 1013 rather than buffered without bound', async () => {
    const server = await startTestServer({ WS_MAX_BUFFERED_BYTES: '65536' });
    try {
      const account = await newAccount(server.url, 'slow');
      const socket = await subscribed(server.url, { authorization: `Bearer ${account.token}` }, ['*']);
      (socket.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const filler = 'x'.repeat(2000);
      for (let i = 0; i < 10; i++) {
        await appendEvents(
          server,
          account.accountId,
          Array.from({ length: 2000 }, (_, n) => ({ filler, n })),
        );
      }
      await new Promise((r) => setTimeout(r, 1500));
      (socket.ws as unknown as { _socket: { resume(): void } })._socket.resume();
      const { code } = await socket.closed;
      expect(code).toBe(1013);
      expect(socket.messages.filter((m) => m.type === 'contact.updated').length).toBeLessThan(20_000);
    } finally {
      await server.stop();
    }
  });
});

describe('several processes', () => {
  it('an event committed in one process reaches a socket connected to another', async () => {
    const other = await spawnTestServer();
    try {
      const account = await newAccount(other.url, 'fanout');
      const socket = await subscribed(sendline.url, { authorization: `Bearer ${account.token}` }, ['contact.created']);
      const { body } = await account.api('POST', '/api/contacts', { body: { email: 'across@example.com' } });
      expect((await socket.next((m) => m.type === 'contact.created')).data.contact.id).toBe(body.id);
      socket.close();
    } finally {
      other.proc.kill('SIGTERM');
      await other.exited;
    }
  });
});

describe('sockets whose credential ends', () => {
  let other: ServerProcess;
  beforeAll(async () => {
    other = await spawnTestServer();
  });
  afterAll(async () => {
    other.proc.kill('SIGTERM');
    await other.exited;
  });

  /** One subscribed socket on each process (this one and the spawned one). */
  const onBoth = (headers: Record<string, string>) => Promise.all([sendline.url, other.url].map((base) => subscribed(base, headers, ['*'])));

  /** Every socket closes with 4001 within a second of `end` answering; `bystanders` stay open. */
  async function closedOnEnd(sockets: Socket[], end: () => Promise<{ status: number }>, bystanders: Socket[] = []) {
    const { status } = await end();
    expect(status).toBeLessThan(300);
    const ended = Date.now();
    const timeout = new Promise<{ code: number }>((resolve) => setTimeout(() => resolve({ code: -1 }), 1000));
    const codes = await Promise.all(sockets.map((s) => Promise.race([s.closed, timeout])));
    expect(codes.map((c) => c.code)).toEqual(sockets.map(() => 4001));
    expect(Date.now() - ended).toBeLessThan(1000);
    for (const s of bystanders) expect(s.ws.readyState).toBe(WebSocket.OPEN);
  }

  const login = async (base: string, email: string, password: string) =>
    (await client(base)('POST', '/api/auth/login', { body: { email, password } })).body as { token: string; refresh_token: string };

  it('logout closes the sockets of that session in every process, and only those', async () => {
    const account = await newAccount(sendline.url, 'ws-logout');
    const second = await login(other.url, account.email, account.password);
    const ending = await onBoth({ authorization: `Bearer ${account.token}` });
    const byQuery = new Socket(`${wsUrl(other.url)}?token=${account.token}`);
    await byQuery.opened();
    const staying = await onBoth({ authorization: `Bearer ${second.token}` });
    await closedOnEnd([...ending, byQuery], () => account.api('POST', '/api/auth/logout'), staying);
    for (const s of staying) s.close();
  });

  it('revoking an API key closes its sockets in every process', async () => {
    const account = await newAccount(sendline.url, 'ws-key');
    const [{ key }, { key: kept }] = await Promise.all([newApiKey(account, sendline.url), newApiKey(account, sendline.url)]);
    const ending = await onBoth({ 'x-api-key': key.key });
    const staying = await onBoth({ authorization: `Bearer ${kept.key}` });
    await closedOnEnd(ending, () => account.api('DELETE', `/api/api-keys/${key.id}`), staying);
    for (const s of staying) s.close();
  });

  it("narrowing an API key's allow-list closes the sockets it no longer allows, in every process", async () => {
    const account = await newAccount(sendline.url, 'ws-ips');
    const { key } = await newApiKey(account, sendline.url, { allowed_ips: ['127.0.0.0/8'] });
    const sockets = await onBoth({ 'x-api-key': key.key });
    const allow = (allowed_ips: string[]) => account.api('PATCH', `/api/api-keys/${key.id}`, { body: { allowed_ips } });
    expect((await allow(['127.0.0.1/32', '::1/128'])).status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    for (const s of sockets) expect(s.ws.readyState).toBe(WebSocket.OPEN);
    await closedOnEnd(sockets, () => allow(['203.0.113.0/24']));
  });

  it('an API key that expires closes its sockets at the next ping', async () => {
    const account = await newAccount(sendline.url, 'ws-expiry');
    const { key } = await newApiKey(account, sendline.url, { expires_at: new Date(Date.now() + 1500).toISOString() });
    const socket = await subscribed(sendline.url, { 'x-api-key': key.key }, ['*']);
    const timeout = new Promise<{ code: number }>((resolve) => setTimeout(() => resolve({ code: -1 }), 5000));
    expect((await Promise.race([socket.closed, timeout])).code).toBe(4001);
  });

  it('deleting a user, changing their password or reusing a refresh token closes their sockets', async () => {
    for (const end of ['delete', 'password', 'refresh reuse'] as const) {
      const account = await newAccount(sendline.url, 'ws-user');
      const email = `ws-${Math.random().toString(36).slice(2)}@example.com`;
      const password = 'a member password';
      const { body: member } = await account.api('POST', '/api/users', { body: { email, password, name: 'M', role: 'member' } });
      const session = await login(sendline.url, email, password);
      const ending = await onBoth({ authorization: `Bearer ${session.token}` });
      const staying = await onBoth({ authorization: `Bearer ${account.token}` });
      const action = {
        delete: () => account.api('DELETE', `/api/users/${member.id}`),
        password: () => account.api('PATCH', `/api/users/${member.id}`, { body: { password: 'another member password' } }),
        'refresh reuse': async () => {
          await client(sendline.url)('POST', '/api/auth/refresh', { body: { refresh_token: session.refresh_token } });
          const reuse = await client(other.url)('POST', '/api/auth/refresh', { body: { refresh_token: session.refresh_token } });
          expect(reuse.body.code).toBe('refresh_token_reused');
          return { status: 204 };
        },
      }[end];
      await closedOnEnd(ending, action, staying);
      for (const s of staying) s.close();
    }
  });
});

import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { authenticate, type Authenticators } from '../auth/middleware.ts';
import { looksLikeApiKey } from '../auth/tokens.ts';
import type { Config } from '../config.ts';
import { sql } from 'kysely';
import type { Db } from '../db/kysely.ts';
import { clientAddress, type TrustProxy } from '../net/client-address.ts';
import { Problem } from '../contract/problem.ts';
import { SECURITY_HEADER_LINES } from '../http/security-headers.ts';
import { compileAllowList, ipAllowed } from '../net/cidr.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../principal.ts';
import type { EventListener } from './listener.ts';
import { isEventPattern, matchesAny } from './patterns.ts';
import { eventEnvelope } from './envelope.ts';
import { EventSubscribers } from './subscribers.ts';
import { hostname } from 'node:os';
import { randomToken } from '../db/ids.ts';

const PATHS = new Set(['/api/ws', '/api/v1/ws', '/v1/ws']);
const MAX_MESSAGE_BYTES = 16 * 1024;
const MAX_REPLAY = 10_000;
/** Close codes: 1008 policy (bad messages), 1013 try again later (slow consumer), 1001 going away. */
const SLOW_CONSUMER = 1013;
/** The credential the socket authenticated with has ended (logout, revocation, deletion, expiry). */
const CREDENTIAL_ENDED = 4001;
/**
 * How long an announced revocation is remembered: a socket whose credential was checked just
 * before it ended may finish its upgrade after the announcement arrived.
 */
const REMEMBER_REVOKED_MS = 60_000;
/** How often this process confirms (and trims) the accounts it holds clients of: see `EventSubscribers`. */
const SUBSCRIBERS_REFRESH_MS = 60_000;
/** Announces a key whose allow-list changed (other announcements name a credential that ended). */
const RESTRICTED = 'key-restricted:';

interface Client {
  socket: WebSocket;
  accountId: string;
  /** `session:<id>` or `key:<id>`, as revocations are announced. */
  credential: string;
  /** The client's address, for API keys' allow-lists. */
  ip: string;
  patterns: string[] | null;
  alive: boolean;
  /** While a resume replays, live events wait here and are sent after it (deduplicated by seq). */
  held: { seq: number; text: string; type: string }[] | null;
  lastSeq: number;
}

/** What a socket is sent of an event: its envelope, and its seq to order and deduplicate. */
const EVENT_COLUMNS = ['seq', 'id', 'type', 'created_at', 'account_id', 'data'] as const;

const envelope = (e: Parameters<typeof eventEnvelope>[0]) => JSON.stringify(eventEnvelope(e));

/** A message from a client: only its shape is known before it is checked. */
type ClientMessage = { type?: unknown; events?: unknown; after?: unknown } | null;

function refuse(socket: Duplex, status: number, code: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ status, code, success: false });
  const lines = Object.entries({ 'WWW-Authenticate': 'Bearer realm="sendline"', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${body.length}\r\n${lines}${SECURITY_HEADER_LINES}Connection: close\r\n\r\n${body}`,
  );
}

const credentialOf = (principal: Principal) => (principal.keyId ? `key:${principal.keyId}` : `session:${principal.sessionId}`);

/**
 * The event stream at `/api/ws`: authenticated at the upgrade, fed by LISTEN/NOTIFY so an event
 * committed by any process reaches every socket of its account.
 */
export function attachEventSocket(
  server: Server,
  deps: { db: Db; listener: EventListener; services: () => Authenticators; config: Config; trustProxy: TrustProxy; log: Logger },
) {
  const { db, listener, config, log } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const clients = new Set<Client>();
  /** Announced revocations and allow-list changes of the last REMEMBER_REVOKED_MS, with when they arrived. */
  const revoked = new Map<string, number>();
  const restricted = new Map<string, number>();
  const subscribers = new EventSubscribers(db, `${hostname()}:${process.pid}:${randomToken(8)}`);

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!PATHS.has(url.pathname)) return refuse(socket, 404, 'not_found');
    socket.on('error', () => {});
    const token = url.searchParams.get('token');
    // Browsers cannot set headers on a WebSocket: a short-lived JWT may come in the query. API
    // keys may not (URLs end up in logs).
    const headers = { ...req.headers } as Record<string, string | undefined>;
    // A query token beside a header credential is two credentials, refused as the API refuses them.
    if (token !== null && (headers.authorization !== undefined || headers['x-api-key'] !== undefined)) return refuse(socket, 400, 'ambiguous_credentials');
    if (token && !looksLikeApiKey(token)) headers.authorization = `Bearer ${token}`;
    const ip = clientAddress(req, deps.trustProxy);
    const pseudo = { get: (name: string) => headers[name.toLowerCase()], ip };
    authenticate(pseudo, deps.services())
      // Events are announced only for accounts registered as listened to: registered first, the
      // socket hears every event committed after it opens.
      .then(async (principal) => {
        await subscribers.register(principal.accountId);
        return principal;
      })
      .then(
        (principal) => {
          wss.handleUpgrade(req, socket, head, (ws) => connected(ws, principal.accountId, credentialOf(principal), ip));
        },
        (err) => {
          if (!(err instanceof Problem)) log.error({ err }, 'WebSocket authentication failed');
          if (err instanceof Problem) refuse(socket, err.status, err.code, err.headers);
          else refuse(socket, 401, 'authentication_required');
        },
      );
  });

  function send(client: Client, text: string): void {
    if (client.socket.bufferedAmount > config.websocket.maxBufferedBytes) {
      // The close frame waits behind what is buffered; a client that never reads it is cut off.
      client.socket.close(SLOW_CONSUMER, 'slow consumer');
      setTimeout(() => client.socket.terminate(), 5000).unref();
      clients.delete(client);
      return;
    }
    client.socket.send(text);
  }

  function connected(socket: WebSocket, accountId: string, credential: string, ip: string): void {
    if (revoked.has(credential)) return void socket.close(CREDENTIAL_ENDED, 'credential ended');
    const client: Client = { socket, accountId, credential, ip, patterns: null, alive: true, held: null, lastSeq: 0 };
    clients.add(client);
    // A refresh during the upgrade may have released the account: a no-op otherwise.
    subscribers.register(accountId).catch((err) => log.warn({ err }, 'registering an event subscriber failed'));
    // Its allow-list may have changed while the upgrade was under way.
    if (restricted.has(credential)) recheck([client]);
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => clients.delete(client));
    socket.on('error', () => clients.delete(client));
    socket.on('message', (raw: Buffer) => {
      handleMessage(client, raw.toString()).catch((err) => {
        log.error({ err }, 'WebSocket message failed');
        socket.send(JSON.stringify({ type: 'error', code: 'internal_error', detail: 'The message could not be handled.' }));
      });
    });
  }

  async function handleMessage(client: Client, text: string): Promise<void> {
    const reply = (message: unknown) => client.socket.send(JSON.stringify(message));
    let message: ClientMessage;
    try {
      message = JSON.parse(text) as ClientMessage;
    } catch {
      return reply({ type: 'error', code: 'invalid_json', detail: 'Messages are JSON objects.' });
    }
    if (message?.type === 'subscribe') {
      const events: unknown = message.events;
      if (!Array.isArray(events) || !events.length || events.length > 50 || !events.every((e): e is string => typeof e === 'string' && isEventPattern(e))) {
        return reply({ type: 'error', code: 'invalid_subscription', detail: 'events: 1 to 50 event types, categories such as "email.*", or "*".' });
      }
      client.patterns = events;
      return reply({ type: 'subscribed', events });
    }
    if (message?.type === 'resume') {
      if (!client.patterns) return reply({ type: 'error', code: 'not_subscribed', detail: 'Subscribe before resuming.' });
      if (typeof message.after !== 'string') return reply({ type: 'error', code: 'invalid_resume', detail: 'after: the id of the last event received.' });
      return resume(client, message.after);
    }
    if (message?.type === 'ping') return reply({ type: 'pong' });
    return reply({ type: 'error', code: 'unknown_message', detail: 'Known messages: subscribe, resume, ping.' });
  }

  async function resume(client: Client, after: string): Promise<void> {
    const from = await db.selectFrom('events').select('seq').where('id', '=', after).where('account_id', '=', client.accountId).executeTakeFirst();
    if (!from) return void client.socket.send(JSON.stringify({ type: 'error', code: 'unknown_event', detail: 'No event of this account has that id.' }));
    client.held = [];
    try {
      const rows = await db
        .selectFrom('events')
        .select(EVENT_COLUMNS)
        .where('account_id', '=', client.accountId)
        .where('seq', '>', from.seq)
        .where('created_at', '>', sql<Date>`now() - make_interval(hours => ${config.websocket.replayHours})`)
        .orderBy('seq')
        .limit(MAX_REPLAY)
        .execute();
      let replayed = 0;
      for (const row of rows) {
        if (client.patterns && matchesAny(client.patterns, row.type)) {
          send(client, envelope(row));
          replayed++;
        }
        client.lastSeq = Number(row.seq);
      }
      client.socket.send(JSON.stringify({ type: 'resumed', after, replayed }));
    } finally {
      const held = client.held;
      client.held = null;
      for (const event of held) if (event.seq > client.lastSeq) send(client, event.text);
    }
  }

  // Announcements are fetched one after another: fetched side by side, a later one could be
  // answered first and its events sent before those announced earlier.
  let fetching = Promise.resolve();
  listener.onEvents(({ accountId, seqs }) => {
    if (![...clients].some((client) => client.accountId === accountId)) return;
    fetching = fetching
      .then(() =>
        db
          .selectFrom('events')
          .select(EVENT_COLUMNS)
          .where('account_id', '=', accountId)
          .where('seq', '=', sql<string>`any(${seqs}::bigint[])`)
          .orderBy('seq')
          .execute(),
      )
      .then((rows) => {
        for (const row of rows) {
          let text: string | null = null;
          for (const client of clients) {
            if (client.accountId !== accountId || !client.patterns || !matchesAny(client.patterns, row.type)) continue;
            text ??= envelope(row);
            if (client.held) client.held.push({ seq: Number(row.seq), text, type: row.type });
            else send(client, text);
          }
        }
      })
      .catch((err) => log.warn({ err }, 'fetching announced events failed'));
  });

  function endCredential(client: Client): void {
    clients.delete(client);
    client.socket.close(CREDENTIAL_ENDED, 'credential ended');
    setTimeout(() => client.socket.terminate(), 5000).unref();
  }

  listener.onRevoked((announced) => {
    if (announced.startsWith(RESTRICTED)) {
      const credential = `key:${announced.slice(RESTRICTED.length)}`;
      restricted.set(credential, Date.now());
      return recheck([...clients].filter((client) => client.credential === credential));
    }
    revoked.set(announced, Date.now());
    for (const client of clients) if (client.credential === announced) endCredential(client);
  });

  /**
   * Closes the clients whose credential is no longer valid, or whose key no longer allows their
   * address, by asking the database: for keys whose allow-list changed, and for what the
   * announcements miss (expiry, announcements lost while the listener reconnected).
   */
  async function recheckCredentials(checked: Client[]): Promise<void> {
    if (!checked.length) return;
    const ids = (kind: string) => checked.filter((c) => c.credential.startsWith(kind)).map((c) => c.credential.slice(kind.length));
    const rows = await db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select([sql<string>`'session:' || s.id`.as('credential'), sql<string[] | null>`null::text[]`.as('allowed_ips')])
      .where('s.id', '=', sql<string>`any(${ids('session:')}::text[])`)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', sql<Date>`now()`)
      .unionAll(
        db
          .selectFrom('api_keys')
          .select([sql<string>`'key:' || id`.as('credential'), 'allowed_ips'])
          .where('id', '=', sql<string>`any(${ids('key:')}::text[])`)
          .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)])),
      )
      .execute();
    const valid = new Map(rows.map((row) => [row.credential, row.allowed_ips && compileAllowList(row.allowed_ips)]));
    for (const client of checked) {
      if (!clients.has(client)) continue;
      const allowList = valid.get(client.credential);
      if (allowList === undefined || !ipAllowed(allowList, client.ip)) endCredential(client);
    }
  }

  const recheck = (checked: Client[] = [...clients]) =>
    void recheckCredentials(checked).catch((err) => log.warn({ err }, 'checking WebSocket credentials failed'));
  listener.onConnected(() => recheck());

  const pinger = setInterval(() => {
    const forgetBefore = Date.now() - REMEMBER_REVOKED_MS;
    for (const remembered of [revoked, restricted]) for (const [credential, at] of remembered) if (at < forgetBefore) remembered.delete(credential);
    recheck();
    for (const client of clients) {
      if (!client.alive) {
        client.socket.terminate();
        clients.delete(client);
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }, config.websocket.pingMs);
  pinger.unref();
  const refresher = setInterval(() => {
    subscribers.refresh(new Set([...clients].map((client) => client.accountId))).catch((err) => log.warn({ err }, 'refreshing event subscribers failed'));
  }, SUBSCRIBERS_REFRESH_MS);
  refresher.unref();

  return {
    /** Resolves once this process no longer asks for announcements. */
    async close(): Promise<void> {
      clearInterval(pinger);
      clearInterval(refresher);
      for (const client of clients) client.socket.close(1001, 'server stopping');
      wss.close();
      await subscribers.close().catch((err) => log.warn({ err }, 'removing event subscribers failed'));
    },
  };
}

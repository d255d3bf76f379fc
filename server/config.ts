import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { availableParallelism, totalmem } from 'node:os';
import { isIP } from 'node:net';
import { LEGACY_KEY_ID, legacyKey, type SecretKey } from './secrets/key-ring.ts';
import { ConfigError } from './config-error.ts';

/** The only module that reads the environment. */
export type Role = 'api' | 'worker' | 'all';

/** Which kind of mail a message is: routes may send each through relays of its own. */
export const STREAMS = ['campaign', 'transactional', 'automation'] as const;
export type Stream = (typeof STREAMS)[number];

/** One relay of `SMTP_RELAYS`. */
export interface RelaySettings {
  name: string;
  /** May hold credentials: never logged. */
  url: string;
  /** Connections to it at most per process, whatever the threads. */
  maxConnections: number;
  /** Messages a second at most, across every process on the database (0: no limit). */
  ratePerSecond: number;
}

/** One route of `SMTP_ROUTES`: mail matching it tries its relays in order. Null: any. */
export interface RelayRoute {
  domain: string | null;
  stream: Stream | null;
  relays: string[];
}

/** `SENDLINE_PROFILE`: `small` fits server and embedded PostgreSQL in 1 GB (bench/README.md, profiles). */
export type Profile = 'default' | 'small';

/** Below this much memory the small profile is the default. */
const SMALL_MACHINE_BYTES = 2 * 1024 ** 3;

export interface Config {
  profile: Profile;
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Connections the process's pool opens at most. */
  databasePoolSize: number;
  publicUrl: string;
  /** Signs session JWTs, and nothing else. */
  jwtSecret: string;
  /** `SECRET_KEYS`: keys tracking and unsubscribe tokens and seals webhook secrets; the first signs and seals, every one verifies and opens. */
  secretKeys: SecretKey[];
  /** The secrets kept in DATA_DIR rather than set in the environment, and whether this start generated them. */
  generatedSecrets: GeneratedSecret[];
  /** Password of the embedded database's user; generated once per data folder. */
  embeddedDatabasePassword: string;
  adminEmail: string | null;
  adminPassword: string | null;
  /** Folder of PostgreSQL's client programs for backups (`PG_BIN`), else the ones found (server/db/pg-tools.ts). */
  pgBin: string | null;
  allowSignup: boolean;
  trustProxy: boolean | number | string;
  logLevel: string;
  role: Role;
  bodyLimitBytes: number;
  validateResponses: boolean;
  defaultKeyRateLimit: number;
  loginAttemptsPerWindow: number;
  /** Sign-ups (successful or not) per client address in an hour. */
  signupsPerHour: number;
  /** Unknown or expired API keys per client address in a minute before its API-key requests get 429. */
  invalidApiKeysPerMinute: number;
  /** Public list subscriptions a minute per client address. */
  publicSubscribesPerMinute: number;
  sending: {
    /** Null: a local capture server stores mail under DATA_DIR/outbox instead of delivering it. */
    smtpUrl: string | null;
    /** `SMTP_RELAYS` and `SMTP_ROUTES`; null: the one relay of `SMTP_URL` (or the capture server). */
    relays: { relays: RelaySettings[]; routes: RelayRoute[] } | null;
    poolSize: number;
    /** Worker threads that render and send (the main thread claims and records). */
    threads: number;
    ratePerSecond: number;
    batchSize: number;
    /** Send jobs per campaign: how many workers (across processes) share one campaign. */
    workersPerCampaign: number;
    retrySeconds: number;
    maxAttempts: number;
    /** A claimed message not recorded after this long is claimed again (its worker died). */
    leaseSeconds: number;
    /** Relay failing this long without a success fails the campaign. */
    failureSeconds: number;
    dkim: { domain: string; selector: string; privateKey: string } | null;
  };
  imports: {
    maxBytes: number;
    maxRows: number;
    maxConcurrentPerAccount: number;
    batchRows: number;
    /** Transactions an import writes at once, each owning the addresses that hash to it. */
    writers: number;
    /** How long a crashed worker's import stays locked before another process resumes it. */
    lockSeconds: number;
    /** The old generation of an import's thread; its young one is an eighth of it. */
    threadHeapMb: number;
  };
  exports: {
    maxConcurrentPerAccount: number;
    /** Finished exports an account keeps; older ones are deleted with their CSV as new ones finish. */
    keptPerAccount: number;
  };
  tracking: {
    /** Hits are written in batches at least this often (and on shutdown). */
    flushMs: number;
    /** An open this soon after delivery is a scanner's or a privacy proxy's prefetch. */
    machineOpenSeconds: number;
    /** How client addresses are stored: `anonymized` (IPv4 /24, IPv6 /48), `full` or `none`. */
    ipMode: 'anonymized' | 'full' | 'none';
    /** Conversions without a click token go to the contact's last click within this many days. */
    attributionDays: number;
    /** Inbound SMTP for DSNs and complaint reports; null: not started. 0 picks a free port. */
    bounceSmtpPort: number | null;
    bounceSmtpHost: string;
  };
  webhooks: {
    /** Development and tests: allow targets on loopback and private networks. */
    allowPrivateNetworks: boolean;
    allowHttp: boolean;
    timeoutMs: number;
    /** Seconds before each retry; jittered by ±10%. */
    retrySchedule: number[];
    /** An endpoint failing this long without a success is disabled. */
    disableAfterSeconds: number;
    concurrencyPerEndpoint: number;
    concurrency: number;
  };
  /** SMTP submission into the transactional stream; null: not started. */
  submission: {
    /** 0 picks a free port. */
    port: number;
    host: string;
    /** PEM certificate and key for STARTTLS; without them, AUTH is taken from loopback clients only. */
    tls: { cert: string; key: string } | null;
    maxBytes: number;
  } | null;
  /** Days a transactional request's body and attachments are kept once every copy reached its final state (0: pruned at the next run). */
  emailContentRetentionDays: number;
  domains: {
    /** The server's bounce host: each domain's `bounces.<domain>` points to it (CNAME), and its SPF advice names it. */
    bounceDomain: string;
    /** `host:port` of the DNS servers that verify records; empty: the system's. */
    dnsServers: string[];
    /** `verified`: send only from verified domains; `any`: from any; `auto`: `any` until an account adds its first domain. */
    policy: 'verified' | 'any' | 'auto';
    perAccount: number;
    /** Verified domains are looked up again once their last check is this old. */
    recheckSeconds: number;
  };
  automations: {
    /** How often segment and date triggers and goals are swept (at least every 5 minutes). */
    sweepSeconds: number;
  };
  metrics: {
    /** `METRICS_TOKEN`: `/metrics` on the API's port answers this bearer token; null: not served there. */
    token: string | null;
    /** `METRICS_PORT`: a listener of its own serving `/metrics` without a token; null: none. */
    port: number | null;
    host: string;
  };
  /** OTLP/HTTP collector traces are exported to; null: tracing is off. */
  tracing: { endpoint: string; serviceName: string } | null;
  /** Seconds `/readyz` answers 503 before a stop closes the listener, for load balancers to notice. */
  shutdownDelaySeconds: number;
  websocket: {
    pingMs: number;
    /** A client that lets this much pile up unread is disconnected (close code 1013). */
    maxBufferedBytes: number;
    replayHours: number;
  };
}

export interface GeneratedSecret {
  /** The variable that would configure it. */
  name: 'JWT_SECRET' | 'SECRET_KEYS';
  file: string;
  created: boolean;
}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, values: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  return raw as T;
}

function secondsList(env: Env, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const values = raw.split(',').map((v) => Number(v.trim()));
  if (!values.length || values.some((v) => !Number.isFinite(v) || v < 0 || v > 30 * 86_400)) {
    throw new ConfigError(`${name} must be comma-separated seconds (0 to 2592000), got "${raw}"`);
  }
  return values;
}

/** `TRUST_PROXY` as Express understands it: a boolean, a hop count, or a list of addresses. */
function trustProxy(raw: string | undefined): boolean | number | string {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = env[name] || fallback;
  try {
    const parsed = new URL(raw);
    if (!['http:', 'https:'].includes(parsed.protocol)) throw new Error('protocol');
    return raw.replace(/\/+$/, '');
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
}

function smtpUrl(raw: string | undefined): string | null {
  if (!raw) return null;
  if (!/^smtps?:\/\//.test(raw)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  return raw;
}

const RELAY_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/i;
const RELAY_KEYS = new Set(['name', 'url', 'max_connections', 'rate_per_second']);
const ROUTE_KEYS = new Set(['domain', 'stream', 'relays']);

function jsonArray(env: Env, name: string, example: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(env[name]!);
  } catch {
    throw new ConfigError(`${name} must be a JSON array, such as ${example}`);
  }
  if (!Array.isArray(parsed) || !parsed.length) throw new ConfigError(`${name} must be a non-empty JSON array, such as ${example}`);
  return parsed;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function wholeNumber(value: unknown, where: string, min: number, max: number): number {
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > max)
    throw new ConfigError(`${where} must be an integer from ${min} to ${max}`);
  return value as number;
}

/** `SMTP_RELAYS`: `[{"name", "url", "max_connections"?, "rate_per_second"?}, …]`. A URL is never quoted: it may hold a password. */
function relayList(env: Env, poolSize: number): RelaySettings[] {
  const seen = new Set<string>();
  return jsonArray(env, 'SMTP_RELAYS', '[{"name":"main","url":"smtps://user:pass@smtp.example.com"}]').map((entry, index) => {
    let where = `SMTP_RELAYS: relay ${index + 1}`;
    if (!isObject(entry)) throw new ConfigError(`${where} must be an object with name and url`);
    const unknown = Object.keys(entry).find((key) => !RELAY_KEYS.has(key));
    if (unknown) throw new ConfigError(`${where} has an unknown field "${unknown}" (known: ${[...RELAY_KEYS].join(', ')})`);
    const { name, url: relayUrl } = entry;
    if (typeof name !== 'string' || !RELAY_NAME.test(name)) throw new ConfigError(`${where} needs a name of 1 to 32 letters, digits, _ or -`);
    where += ` ("${name}")`;
    if (seen.has(name)) throw new ConfigError(`${where} repeats a name`);
    seen.add(name);
    if (typeof relayUrl !== 'string' || !/^smtps?:\/\/[^/?#]/.test(relayUrl) || !URL.canParse(relayUrl)) {
      throw new ConfigError(`${where} needs a url, smtp:// or smtps://`);
    }
    return {
      name,
      url: relayUrl,
      maxConnections: entry.max_connections === undefined ? poolSize : wholeNumber(entry.max_connections, `${where} max_connections`, 1, 100),
      ratePerSecond: entry.rate_per_second === undefined ? 0 : wholeNumber(entry.rate_per_second, `${where} rate_per_second`, 0, 1_000_000),
    };
  });
}

/** `SMTP_ROUTES`: `[{"domain"?, "stream"?, "relays": [names]}, …]`; no two alike. */
function routeList(env: Env, relays: RelaySettings[]): RelayRoute[] {
  if (!env.SMTP_ROUTES) return [];
  const names = new Set(relays.map((relay) => relay.name));
  const seen = new Set<string>();
  return jsonArray(env, 'SMTP_ROUTES', '[{"stream":"transactional","relays":["main","backup"]}]').map((entry, index) => {
    const where = `SMTP_ROUTES: route ${index + 1}`;
    if (!isObject(entry)) throw new ConfigError(`${where} must be an object with relays`);
    const unknown = Object.keys(entry).find((key) => !ROUTE_KEYS.has(key));
    if (unknown) throw new ConfigError(`${where} has an unknown field "${unknown}" (known: ${[...ROUTE_KEYS].join(', ')})`);
    const { domain, stream, relays: list } = entry;
    if (domain !== undefined && (typeof domain !== 'string' || !HOST_NAME.test(domain)))
      throw new ConfigError(`${where} domain must be a domain name such as example.com`);
    if (stream !== undefined && !STREAMS.includes(stream as Stream)) throw new ConfigError(`${where} stream must be one of ${STREAMS.join(', ')}`);
    if (!Array.isArray(list) || !list.length) throw new ConfigError(`${where} needs relays, a non-empty list of relay names`);
    for (const name of list) {
      if (typeof name !== 'string' || !names.has(name)) throw new ConfigError(`${where} names a relay SMTP_RELAYS does not have: ${JSON.stringify(name)}`);
    }
    if (new Set(list).size !== list.length) throw new ConfigError(`${where} lists a relay twice`);
    const route: RelayRoute = {
      domain: domain === undefined ? null : domain.toLowerCase(),
      stream: (stream as Stream | undefined) ?? null,
      relays: list as string[],
    };
    const key = `${route.domain ?? '*'} ${route.stream ?? '*'}`;
    if (seen.has(key)) throw new ConfigError(`${where} repeats the domain and stream of an earlier route`);
    seen.add(key);
    return route;
  });
}

function relays(env: Env, poolSize: number): Config['sending']['relays'] {
  if (!env.SMTP_RELAYS) {
    if (env.SMTP_ROUTES) throw new ConfigError('SMTP_ROUTES needs SMTP_RELAYS');
    return null;
  }
  if (env.SMTP_URL) throw new ConfigError('Set SMTP_URL (one relay) or SMTP_RELAYS (several), not both');
  const list = relayList(env, poolSize);
  return { relays: list, routes: routeList(env, list) };
}

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

function hostName(env: Env, name: string, fallback: string): string {
  const value = (env[name] || fallback).toLowerCase();
  if (!HOST_NAME.test(value)) throw new ConfigError(`${name} must be a host name such as bounces.example.com`);
  return value;
}

/** `DNS_SERVERS`: comma-separated `host:port` (or a bare address, port 53; IPv6 in brackets). */
function dnsServers(raw: string | undefined): string[] {
  if (!raw?.trim()) return [];
  return raw.split(',').map((entry) => {
    const server = entry.trim();
    const match = /^(?:\[([0-9a-f:]+)\]|([0-9.]+)|([0-9a-f:]+))(?::(\d{1,5}))?$/i.exec(server);
    const port = match?.[4] ? Number(match[4]) : 53;
    if (!match || (match[3] && match[4]) || port < 1 || port > 65535 || !isIP(match[1] ?? match[2] ?? match[3])) {
      throw new ConfigError(`DNS_SERVERS must list IP addresses with optional ports, such as 127.0.0.1:5353,[::1]:53 (got "${server}")`);
    }
    return server;
  });
}

function dkim(env: Env): Config['sending']['dkim'] {
  const { DKIM_DOMAIN: domain, DKIM_SELECTOR: selector, DKIM_PRIVATE_KEY: privateKey } = env;
  if (!domain && !selector && !privateKey) return null;
  if (!domain || !selector || !privateKey) throw new ConfigError('DKIM_DOMAIN, DKIM_SELECTOR and DKIM_PRIVATE_KEY must be set together');
  return { domain, selector, privateKey: privateKey.replace(/\\n/g, '\n') };
}

function submission(env: Env): Config['submission'] {
  if (!env.SUBMISSION_PORT) return null;
  const { SUBMISSION_TLS_CERT: certFile, SUBMISSION_TLS_KEY: keyFile } = env;
  if (!certFile !== !keyFile) throw new ConfigError('SUBMISSION_TLS_CERT and SUBMISSION_TLS_KEY must be set together');
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      throw new ConfigError(`${name} names a file that cannot be read: ${file}`);
    }
  };
  return {
    port: integer(env, 'SUBMISSION_PORT', 0, 0, 65535),
    host: env.SUBMISSION_HOST || '0.0.0.0',
    tls: certFile && keyFile ? { cert: read('SUBMISSION_TLS_CERT', certFile), key: read('SUBMISSION_TLS_KEY', keyFile) } : null,
    maxBytes: integer(env, 'SUBMISSION_MAX_BYTES', 15 * 1024 * 1024, 1024, 50 * 1024 * 1024),
  };
}

/** A file of DATA_DIR, created owner-only unless another process sharing the folder just did: then theirs. */
function createOnce(file: string, text: string): { text: string; created: boolean } {
  try {
    writeFileSync(file, text + '\n', { mode: 0o600, flag: 'wx' });
    return { text, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { text: readFileSync(file, 'utf8').trim(), created: false };
  }
}

/** A secret from the environment, or one generated once and kept in the data folder. */
function persistentSecret(env: Env, name: string, dataDir: string, file: string, generated: GeneratedSecret[] | null): string {
  const given = env[name];
  if (given) {
    if (given.length < 32) throw new ConfigError(`${name} must be at least 32 characters`);
    return given;
  }
  const secretPath = path.join(dataDir, file);
  const { text, created } = existsSync(secretPath)
    ? { text: readFileSync(secretPath, 'utf8').trim(), created: false }
    : createOnce(secretPath, randomBytes(48).toString('base64url'));
  generated?.push({ name: name as GeneratedSecret['name'], file: secretPath, created });
  return text;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_KEYS = 32;

/** `id:base64key,…` (`SECRET_KEYS`, or DATA_DIR/secret-keys): ids unique, keys of 32 bytes or more. */
function parseKeyRing(raw: string, source: string): SecretKey[] {
  const entries = raw.split(',').map((entry) => entry.trim());
  if (entries.length > MAX_KEYS) throw new ConfigError(`${source} holds ${entries.length} keys; at most ${MAX_KEYS}`);
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const colon = entry.indexOf(':');
    const id = colon < 0 ? entry : entry.slice(0, colon);
    const key = colon < 0 ? '' : entry.slice(colon + 1);
    // Never quote the key: the message reaches logs.
    const where = `${source}: entry ${index + 1}${KEY_ID.test(id) ? ` ("${id}")` : ''}`;
    if (!KEY_ID.test(id)) throw new ConfigError(`${where} must be id:base64key, with an id of 1 to 32 letters, digits, _ or -`);
    if (seen.has(id)) throw new ConfigError(`${where} repeats an id`);
    seen.add(id);
    if (!BASE64.test(key)) throw new ConfigError(`${where} must have a base64 key after the colon (openssl rand -base64 32)`);
    const bytes = Buffer.from(key, 'base64').length;
    if (id === LEGACY_KEY_ID && bytes < 32) throw new ConfigError(`${where} must be the base64 of a JWT secret of at least 32 characters`);
    if (bytes < 32) throw new ConfigError(`${where} must be at least 32 bytes (openssl rand -base64 32), got ${bytes}`);
    return { id, key };
  });
}

const newKeyEntry = () => `k${randomBytes(4).toString('hex')}:${randomBytes(32).toString('base64')}`;

/**
 * `SECRET_KEYS`, else DATA_DIR/secret-keys. A deployment that sets JWT_SECRET but no key ring keeps
 * its links keyed from JWT_SECRET as before key rings (its processes may have folders of their
 * own, and would each generate a different ring). Otherwise the ring is generated once, and when
 * the folder's JWT secret predates it, that secret joins as the legacy key, so links mailed
 * earlier keep working whatever becomes of the JWT secret.
 */
function secretKeys(env: Env, dataDir: string, jwtSecret: string, generated: GeneratedSecret[]): SecretKey[] {
  if (env.SECRET_KEYS) return parseKeyRing(env.SECRET_KEYS, 'SECRET_KEYS');
  const file = path.join(dataDir, 'secret-keys');
  if (existsSync(file)) {
    generated.push({ name: 'SECRET_KEYS', file, created: false });
    return parseKeyRing(readFileSync(file, 'utf8').trim(), file);
  }
  if (env.JWT_SECRET) return [legacyKey(jwtSecret)];
  const jwtCreatedNow = generated.some((secret) => secret.name === 'JWT_SECRET' && secret.created);
  const legacy = jwtCreatedNow ? [] : [`${LEGACY_KEY_ID}:${legacyKey(jwtSecret).key}`];
  const { text, created } = createOnce(file, [newKeyEntry(), ...legacy].join(','));
  generated.push({ name: 'SECRET_KEYS', file, created });
  return parseKeyRing(text, file);
}

/** The data folder, resolved: `DATA_DIR`, else `./.data`. */
export const dataDirOf = (env: Env): string => path.resolve(env.DATA_DIR || './.data');

function metricsToken(env: Env): string | null {
  const token = env.METRICS_TOKEN || null;
  if (token !== null && !/^[\x21-\x7e]{16,200}$/.test(token)) {
    throw new ConfigError('METRICS_TOKEN must be 16 to 200 printable characters without spaces');
  }
  return token;
}

function metricsSettings(env: Env, apiPort: number): Config['metrics'] {
  const port = env.METRICS_PORT ? integer(env, 'METRICS_PORT', 0, 0, 65535) : null;
  if (port !== null && port !== 0 && port === apiPort) throw new ConfigError('METRICS_PORT must differ from PORT (METRICS_TOKEN serves /metrics on PORT)');
  return { token: metricsToken(env), port, host: env.METRICS_HOST || '127.0.0.1' };
}

function tracing(env: Env): Config['tracing'] {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) return null;
  return { endpoint: url(env, 'OTEL_EXPORTER_OTLP_ENDPOINT', ''), serviceName: env.OTEL_SERVICE_NAME || 'sendline' };
}

export function loadConfig(env: Env = process.env, totalMemory = totalmem()): Config {
  const profile = oneOf(env, 'SENDLINE_PROFILE', totalMemory < SMALL_MACHINE_BYTES ? 'small' : 'default', ['default', 'small'] as const);
  const small = profile === 'small';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = dataDirOf(env);
  mkdirSync(dataDir, { recursive: true });
  const role = (env.SENDLINE_ROLE || 'all') as Role;
  if (!['api', 'worker', 'all'].includes(role)) {
    throw new ConfigError(`SENDLINE_ROLE must be api, worker or all, got "${env.SENDLINE_ROLE}"`);
  }
  const adminEmail = env.ADMIN_EMAIL || null;
  const adminPassword = env.ADMIN_PASSWORD || null;
  if ((adminEmail === null) !== (adminPassword === null)) {
    throw new ConfigError('ADMIN_EMAIL and ADMIN_PASSWORD must be set together');
  }
  if (adminPassword !== null && adminPassword.length < 10) {
    throw new ConfigError('ADMIN_PASSWORD must be at least 10 characters');
  }
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL');
  }
  const generatedSecrets: GeneratedSecret[] = [];
  const jwtSecret = persistentSecret(env, 'JWT_SECRET', dataDir, 'jwt-secret', generatedSecrets);
  const logLevel = env.LOG_LEVEL || 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent`);
  }
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${port}`);
  return {
    profile,
    port,
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl,
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', small ? 8 : 20, 4, 500),
    publicUrl,
    jwtSecret,
    secretKeys: secretKeys(env, dataDir, jwtSecret, generatedSecrets),
    generatedSecrets,
    embeddedDatabasePassword: persistentSecret({}, 'embedded', dataDir, 'pg-password', null),
    adminEmail,
    adminPassword,
    pgBin: env.PG_BIN || null,
    allowSignup: boolean(env, 'ALLOW_SIGNUP', false),
    trustProxy: trustProxy(env.TRUST_PROXY),
    logLevel,
    role,
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    validateResponses: boolean(env, 'VALIDATE_RESPONSES', false),
    defaultKeyRateLimit: integer(env, 'API_KEY_RATE_LIMIT', 600, 1, 1_000_000),
    loginAttemptsPerWindow: integer(env, 'LOGIN_ATTEMPTS_PER_15_MIN', 10, 1, 10_000),
    signupsPerHour: integer(env, 'SIGNUPS_PER_HOUR', 20, 1, 10_000_000),
    invalidApiKeysPerMinute: integer(env, 'INVALID_API_KEYS_PER_MINUTE', 30, 1, 10_000_000),
    publicSubscribesPerMinute: integer(env, 'PUBLIC_SUBSCRIBES_PER_MINUTE', 10, 1, 10_000_000),
    sending: {
      smtpUrl: smtpUrl(env.SMTP_URL),
      relays: relays(env, integer(env, 'SMTP_POOL_SIZE', 5, 1, 100)),
      poolSize: integer(env, 'SMTP_POOL_SIZE', 5, 1, 100),
      threads: integer(env, 'SEND_THREADS', small ? 1 : availableParallelism(), 1, 64),
      ratePerSecond: integer(env, 'SEND_RATE_PER_SECOND', 0, 0, 1_000_000),
      batchSize: integer(env, 'SEND_BATCH_SIZE', 100, 1, 10_000),
      workersPerCampaign: integer(env, 'SEND_WORKERS_PER_CAMPAIGN', 2, 1, 64),
      retrySeconds: integer(env, 'SEND_RETRY_SECONDS', 60, 1, 86_400),
      maxAttempts: integer(env, 'SEND_MAX_ATTEMPTS', 5, 1, 50),
      leaseSeconds: integer(env, 'SEND_LEASE_SECONDS', 300, 1, 86_400),
      failureSeconds: integer(env, 'SEND_FAILURE_SECONDS', 300, 1, 86_400),
      dkim: dkim(env),
    },
    imports: {
      maxBytes: integer(env, 'IMPORT_MAX_BYTES', 100 * 1024 * 1024, 1024, 10 * 1024 * 1024 * 1024),
      maxRows: integer(env, 'IMPORT_MAX_ROWS', 1_000_000, 1, 100_000_000),
      maxConcurrentPerAccount: integer(env, 'IMPORT_MAX_CONCURRENT', 2, 1, 100),
      batchRows: integer(env, 'IMPORT_BATCH_ROWS', 5000, 1, 100_000),
      writers: integer(env, 'IMPORT_WRITERS', small ? 1 : 2, 1, 8),
      lockSeconds: integer(env, 'IMPORT_LOCK_SECONDS', 60, 1, 3600),
      threadHeapMb: integer(env, 'IMPORT_THREAD_HEAP_MB', small ? 128 : 256, 8, 16_384),
    },
    exports: {
      maxConcurrentPerAccount: integer(env, 'EXPORT_MAX_CONCURRENT', 2, 1, 100),
      keptPerAccount: integer(env, 'EXPORT_MAX_KEPT', 10, 1, 1000),
    },
    tracking: {
      flushMs: integer(env, 'TRACKING_FLUSH_MS', 1000, 10, 60_000),
      machineOpenSeconds: integer(env, 'TRACKING_MACHINE_OPEN_SECONDS', 2, 0, 3600),
      ipMode: oneOf(env, 'TRACKING_IP', 'anonymized', ['anonymized', 'full', 'none'] as const),
      attributionDays: integer(env, 'ATTRIBUTION_WINDOW_DAYS', 7, 0, 365),
      bounceSmtpPort: env.BOUNCE_SMTP_PORT ? integer(env, 'BOUNCE_SMTP_PORT', 0, 0, 65535) : null,
      bounceSmtpHost: env.BOUNCE_SMTP_HOST || '0.0.0.0',
    },
    submission: submission(env),
    emailContentRetentionDays: integer(env, 'EMAIL_CONTENT_RETENTION_DAYS', 30, 0, 3650),
    webhooks: {
      allowPrivateNetworks: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
      allowHttp: boolean(env, 'WEBHOOK_ALLOW_HTTP', false),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
      retrySchedule: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', [5, 300, 1800, 7200, 18000, 36000, 36000]),
      disableAfterSeconds: integer(env, 'WEBHOOK_DISABLE_AFTER_SECONDS', 5 * 86_400, 1, 365 * 86_400),
      concurrencyPerEndpoint: integer(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 100),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', small ? 16 : 64, 1, 1000),
    },
    domains: {
      bounceDomain: hostName(env, 'BOUNCE_DOMAIN', `bounces.${new URL(publicUrl).hostname}`),
      dnsServers: dnsServers(env.DNS_SERVERS),
      policy: oneOf(env, 'SENDING_DOMAIN_POLICY', 'auto', ['auto', 'verified', 'any'] as const),
      perAccount: integer(env, 'DOMAINS_PER_ACCOUNT', 100, 1, 10_000),
      recheckSeconds: integer(env, 'DOMAIN_RECHECK_SECONDS', 86_400, 1, 30 * 86_400),
    },
    automations: {
      sweepSeconds: integer(env, 'AUTOMATION_SWEEP_SECONDS', 60, 1, 300),
    },
    metrics: metricsSettings(env, port),
    tracing: tracing(env),
    shutdownDelaySeconds: integer(env, 'SHUTDOWN_DELAY_SECONDS', 0, 0, 300),
    websocket: {
      pingMs: integer(env, 'WS_PING_MS', 30_000, 100, 600_000),
      maxBufferedBytes: integer(env, 'WS_MAX_BUFFERED_BYTES', 4 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      replayHours: integer(env, 'WS_REPLAY_HOURS', 24, 1, 24 * 30),
    },
  };
}

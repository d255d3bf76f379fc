import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { ConfigError } from './config-error.ts';

const freshDir = () => mkdtempSync(path.join(tmpdir(), 'sendline-config-'));
const JWT_SECRET = 'a-jwt-secret-that-is-long-enough-0123456789';
const key = () => randomBytes(32).toString('base64');

describe('the secrets of the configuration', () => {
  it('refuse a malformed SECRET_KEYS, naming the entry and never the key', () => {
    const good = key();
    for (const [value, message] of [
      [`k1:${good},k1:${key()}`, 'SECRET_KEYS: entry 2 ("k1") repeats an id'],
      [`k1:${randomBytes(16).toString('base64')}`, 'SECRET_KEYS: entry 1 ("k1") must be at least 32 bytes (openssl rand -base64 32), got 16'],
      [good, 'SECRET_KEYS: entry 1 must be id:base64key'],
      [`k1:${good},bad id:${good}`, 'SECRET_KEYS: entry 2 must be id:base64key'],
      [`k1:${good},`, 'SECRET_KEYS: entry 2 must be id:base64key'],
      [`k1:${good.slice(0, -4)}!!!=`, 'SECRET_KEYS: entry 1 ("k1") must have a base64 key'],
      [`legacy:${Buffer.from('too short').toString('base64')}`, 'SECRET_KEYS: entry 1 ("legacy") must be the base64 of a JWT secret of at least 32 characters'],
      [Array.from({ length: 33 }, (_, i) => `k${i}:${good}`).join(','), 'SECRET_KEYS holds 33 keys; at most 32'],
    ]) {
      const load = () => loadConfig({ DATA_DIR: freshDir(), SECRET_KEYS: value });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
      try {
        load();
      } catch (error) {
        expect((error as Error).message).not.toContain(good);
      }
    }
  });

  it('take SECRET_KEYS as given, the first one current, apart from JWT_SECRET', () => {
    const [k2, k1] = [key(), key()];
    const config = loadConfig({ DATA_DIR: freshDir(), JWT_SECRET, SECRET_KEYS: ` k2:${k2} , k1:${k1}` });
    expect(config.secretKeys).toEqual([
      { id: 'k2', key: k2 },
      { id: 'k1', key: k1 },
    ]);
    expect(config.jwtSecret).toBe(JWT_SECRET);
    expect(config.generatedSecrets).toEqual([]);
  });

  it('key links from JWT_SECRET as before when it is set and SECRET_KEYS is not, generating nothing', () => {
    const config = loadConfig({ DATA_DIR: freshDir(), JWT_SECRET });
    expect(config.secretKeys).toEqual([{ id: 'legacy', key: Buffer.from(JWT_SECRET).toString('base64') }]);
    expect(config.generatedSecrets).toEqual([]);
  });

  it('generate a ring once per DATA_DIR, owner-only, with no legacy key in a new folder', () => {
    const dir = freshDir();
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.secretKeys).toHaveLength(1);
    expect(first.secretKeys[0].id).toMatch(/^k[0-9a-f]{8}$/);
    expect(Buffer.from(first.secretKeys[0].key, 'base64')).toHaveLength(32);
    expect(first.generatedSecrets.map(({ name, created }) => [name, created])).toEqual([
      ['JWT_SECRET', true],
      ['SECRET_KEYS', true],
    ]);
    expect(statSync(path.join(dir, 'secret-keys')).mode & 0o777).toBe(0o600);
    const again = loadConfig({ DATA_DIR: dir });
    expect(again.secretKeys).toEqual(first.secretKeys);
    expect(again.generatedSecrets.map(({ created }) => created)).toEqual([false, false]);
  });

  it("pin a folder's earlier JWT secret as the legacy key, so changing JWT_SECRET later keeps its links", () => {
    const dir = freshDir();
    writeFileSync(path.join(dir, 'jwt-secret'), `${JWT_SECRET}\n`);
    const upgraded = loadConfig({ DATA_DIR: dir });
    expect(upgraded.secretKeys[1]).toEqual({ id: 'legacy', key: Buffer.from(JWT_SECRET).toString('base64') });
    expect(readFileSync(path.join(dir, 'secret-keys'), 'utf8')).toContain(`legacy:${Buffer.from(JWT_SECRET).toString('base64')}`);
    const rotated = loadConfig({ DATA_DIR: dir, JWT_SECRET: 'another-jwt-secret-that-is-long-enough-0123' });
    expect(rotated.secretKeys).toEqual(upgraded.secretKeys);
  });
});

describe('several relays', () => {
  const relays = JSON.stringify([
    { name: 'main', url: 'smtps://user:s3cret-pass@smtp.main.example:465', max_connections: 8, rate_per_second: 50 },
    { name: 'backup', url: 'smtp://smtp.backup.example:587' },
  ]);

  it('reads SMTP_RELAYS and SMTP_ROUTES, defaulting connections to SMTP_POOL_SIZE and the rate to none', () => {
    const routes = JSON.stringify([
      { stream: 'transactional', relays: ['backup', 'main'] },
      { domain: 'News.Example.com', relays: ['main'] },
      { domain: 'example.com', stream: 'automation', relays: ['backup'] },
    ]);
    const config = loadConfig({ DATA_DIR: freshDir(), SMTP_POOL_SIZE: '3', SMTP_RELAYS: relays, SMTP_ROUTES: routes });
    expect(config.sending.smtpUrl).toBeNull();
    expect(config.sending.relays).toEqual({
      relays: [
        { name: 'main', url: 'smtps://user:s3cret-pass@smtp.main.example:465', maxConnections: 8, ratePerSecond: 50 },
        { name: 'backup', url: 'smtp://smtp.backup.example:587', maxConnections: 3, ratePerSecond: 0 },
      ],
      routes: [
        { domain: null, stream: 'transactional', relays: ['backup', 'main'] },
        { domain: 'news.example.com', stream: null, relays: ['main'] },
        { domain: 'example.com', stream: 'automation', relays: ['backup'] },
      ],
    });
    expect(loadConfig({ DATA_DIR: freshDir(), SMTP_URL: 'smtp://one.example:25' }).sending.relays).toBeNull();
  });

  it('refuse malformed relays and routes with a message naming the entry, never a URL', () => {
    const one = (relay: Record<string, unknown>) => JSON.stringify([relay]);
    for (const [env, message] of [
      [{ SMTP_RELAYS: relays, SMTP_URL: 'smtp://one.example' }, 'Set SMTP_URL (one relay) or SMTP_RELAYS (several), not both'],
      [{ SMTP_ROUTES: '[{"relays":["main"]}]' }, 'SMTP_ROUTES needs SMTP_RELAYS'],
      [{ SMTP_RELAYS: 'main=smtp://x' }, 'SMTP_RELAYS must be a JSON array'],
      [{ SMTP_RELAYS: '[]' }, 'SMTP_RELAYS must be a non-empty JSON array'],
      [{ SMTP_RELAYS: '["smtp://x"]' }, 'SMTP_RELAYS: relay 1 must be an object with name and url'],
      [{ SMTP_RELAYS: one({ url: 'smtp://x' }) }, 'SMTP_RELAYS: relay 1 needs a name of 1 to 32 letters'],
      [{ SMTP_RELAYS: one({ name: 'a b', url: 'smtp://x' }) }, 'SMTP_RELAYS: relay 1 needs a name'],
      [{ SMTP_RELAYS: one({ name: 'a', url: 'http://user:s3cret-pass@x' }) }, 'SMTP_RELAYS: relay 1 ("a") needs a url, smtp:// or smtps://'],
      [{ SMTP_RELAYS: one({ name: 'a', url: 'smtp://user:s3cret-pass@x', rate: 5 }) }, 'SMTP_RELAYS: relay 1 has an unknown field "rate"'],
      [{ SMTP_RELAYS: one({ name: 'a', url: 'smtp://x', max_connections: 0 }) }, 'SMTP_RELAYS: relay 1 ("a") max_connections must be an integer from 1 to 100'],
      [{ SMTP_RELAYS: one({ name: 'a', url: 'smtp://x', rate_per_second: 1.5 }) }, 'SMTP_RELAYS: relay 1 ("a") rate_per_second must be an integer from 0'],
      [
        {
          SMTP_RELAYS: JSON.stringify([
            { name: 'a', url: 'smtp://x' },
            { name: 'a', url: 'smtp://y' },
          ]),
        },
        'SMTP_RELAYS: relay 2 ("a") repeats a name',
      ],
      [{ SMTP_RELAYS: relays, SMTP_ROUTES: '{"relays":["main"]}' }, 'SMTP_ROUTES must be a non-empty JSON array'],
      [{ SMTP_RELAYS: relays, SMTP_ROUTES: '[{"relays":["main"],"via":"x"}]' }, 'SMTP_ROUTES: route 1 has an unknown field "via"'],
      [{ SMTP_RELAYS: relays, SMTP_ROUTES: '[{"relays":["main"],"domain":"not a domain"}]' }, 'SMTP_ROUTES: route 1 domain must be a domain name'],
      [
        { SMTP_RELAYS: relays, SMTP_ROUTES: '[{"relays":["main"],"stream":"marketing"}]' },
        'SMTP_ROUTES: route 1 stream must be one of campaign, transactional, automation',
      ],
      [{ SMTP_RELAYS: relays, SMTP_ROUTES: '[{"stream":"campaign"}]' }, 'SMTP_ROUTES: route 1 needs relays'],
      [
        { SMTP_RELAYS: relays, SMTP_ROUTES: '[{"stream":"campaign","relays":["other"]}]' },
        'SMTP_ROUTES: route 1 names a relay SMTP_RELAYS does not have: "other"',
      ],
      [{ SMTP_RELAYS: relays, SMTP_ROUTES: '[{"relays":["main","main"]}]' }, 'SMTP_ROUTES: route 1 lists a relay twice'],
      [
        { SMTP_RELAYS: relays, SMTP_ROUTES: '[{"domain":"a.example","relays":["main"]},{"domain":"A.example","relays":["backup"]}]' },
        'SMTP_ROUTES: route 2 repeats the domain and stream of an earlier route',
      ],
    ] as const) {
      const load = () => loadConfig({ DATA_DIR: freshDir(), ...env });
      expect(load).toThrow(ConfigError);
      expect(load).toThrow(message);
      try {
        load();
      } catch (error) {
        expect((error as Error).message).not.toContain('s3cret-pass');
      }
    }
  });
});

describe('the sending domains of the configuration', () => {
  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: freshDir(), JWT_SECRET, ...env }).domains;

  it('default the bounce host to bounces. and the public host, the policy to auto, the resolvers to the system', () => {
    expect(load({ PUBLIC_URL: 'https://mail.example.com' })).toMatchObject({ bounceDomain: 'bounces.mail.example.com', policy: 'auto', dnsServers: [] });
  });

  it('take resolvers as addresses with optional ports', () => {
    expect(load({ DNS_SERVERS: '127.0.0.1:5353, [::1]:53,1.1.1.1,::1' }).dnsServers).toEqual(['127.0.0.1:5353', '[::1]:53', '1.1.1.1', '::1']);
  });

  it('refuse resolvers, bounce hosts and policies that are not', () => {
    for (const [env, message] of [
      [{ DNS_SERVERS: 'dns.google:53' }, 'DNS_SERVERS must list IP addresses'],
      [{ DNS_SERVERS: '127.0.0.1:99999' }, 'DNS_SERVERS must list IP addresses'],
      [{ DNS_SERVERS: '127.0.0.1,' }, 'DNS_SERVERS must list IP addresses'],
      [{ BOUNCE_DOMAIN: 'bounces_example.com' }, 'BOUNCE_DOMAIN must be a host name'],
      [{ BOUNCE_DOMAIN: 'https://bounces.example.com' }, 'BOUNCE_DOMAIN must be a host name'],
      [{ SENDING_DOMAIN_POLICY: 'strict' }, 'SENDING_DOMAIN_POLICY must be one of'],
    ] as const) {
      expect(() => load(env), JSON.stringify(env)).toThrow(message);
    }
  });
});

describe('the operations settings', () => {
  const GB = 1024 ** 3;

  it('choose the small profile under 2 GB of memory unless SENDLINE_PROFILE says otherwise', () => {
    const small = loadConfig({ DATA_DIR: freshDir() }, 1 * GB);
    expect(small.profile).toBe('small');
    expect(small).toMatchObject({ databasePoolSize: 8, sending: { threads: 1 }, imports: { writers: 1, threadHeapMb: 128 }, webhooks: { concurrency: 16 } });
    expect(loadConfig({ DATA_DIR: freshDir() }, 4 * GB)).toMatchObject({ profile: 'default', databasePoolSize: 20, imports: { writers: 2 } });
    expect(loadConfig({ DATA_DIR: freshDir(), SENDLINE_PROFILE: 'default' }, 1 * GB).profile).toBe('default');
    // A setting given wins over its profile's default.
    expect(loadConfig({ DATA_DIR: freshDir(), SEND_THREADS: '2' }, 1 * GB).sending.threads).toBe(2);
    expect(() => loadConfig({ DATA_DIR: freshDir(), SENDLINE_PROFILE: 'tiny' })).toThrow('SENDLINE_PROFILE must be one of default, small, got "tiny"');
  });

  it('serve metrics only when asked, behind a token of some length', () => {
    expect(loadConfig({ DATA_DIR: freshDir() }).metrics).toEqual({ token: null, port: null, host: '127.0.0.1' });
    expect(loadConfig({ DATA_DIR: freshDir(), METRICS_PORT: '9464', METRICS_TOKEN: 'x'.repeat(16) }).metrics).toEqual({
      token: 'x'.repeat(16),
      port: 9464,
      host: '127.0.0.1',
    });
    expect(() => loadConfig({ DATA_DIR: freshDir(), METRICS_TOKEN: 'short' })).toThrow('METRICS_TOKEN must be 16 to 200 printable characters');
    expect(() => loadConfig({ DATA_DIR: freshDir(), METRICS_TOKEN: 'has a space in it here' })).toThrow('METRICS_TOKEN');
    expect(() => loadConfig({ DATA_DIR: freshDir(), PORT: '9000', METRICS_PORT: '9000' })).toThrow('METRICS_PORT must differ from PORT');
  });

  it('trace only to an http(s) collector', () => {
    expect(loadConfig({ DATA_DIR: freshDir() }).tracing).toBeNull();
    expect(loadConfig({ DATA_DIR: freshDir(), OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      endpoint: 'http://collector:4318',
      serviceName: 'sendline',
    });
    expect(() => loadConfig({ DATA_DIR: freshDir(), OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).toThrow(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL',
    );
  });
});

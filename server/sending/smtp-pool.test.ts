import { afterEach, describe, expect, it } from 'vitest';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SmtpPool } from './smtp-pool.ts';

const message = (to: string) => `From: news@shop.example\r\nTo: ${to}\r\nSubject: Hi\r\n\r\nHello\r\n`;

/** A relay counting connections and messages; refuses `refused@…` with 550. */
async function relay(options: Partial<SMTPServerOptions> = {}) {
  const stats = { connections: 0, open: 0, maxOpen: 0, messages: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      stats.connections++;
      stats.maxOpen = Math.max(stats.maxOpen, ++stats.open);
      callback();
    },
    onClose() {
      stats.open--;
    },
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('refused@')) return callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
      callback();
    },
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        stats.messages++;
        callback();
      });
    },
    ...options,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return { server, stats, port };
}

describe('SMTP pool', () => {
  const servers: SMTPServer[] = [];
  const pools: SmtpPool[] = [];
  const start = async (options?: Partial<SMTPServerOptions>, credentials = '', size = 3) => {
    const r = await relay(options);
    servers.push(r.server);
    const pool = new SmtpPool(`smtp://${credentials}127.0.0.1:${r.port}`, size);
    pools.push(pool);
    return { ...r, pool };
  };
  afterEach(async () => {
    for (const pool of pools.splice(0)) pool.close();
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  it('sends on at most `size` connections, and keeps a connection whose recipient was refused', async () => {
    const { pool, stats } = await start();
    const sends = Array.from({ length: 30 }, (_, i) => {
      const to = i % 5 === 0 ? `refused@inbox.example` : `reader${i}@inbox.example`;
      return pool.send({ from: 'bounces@shop.example', to }, message(to)).then(
        () => 'sent',
        (err) => `${err.code} ${err.responseCode}`,
      );
    });
    const outcomes = await Promise.all(sends);
    expect(outcomes.filter((o) => o === 'sent')).toHaveLength(24);
    expect(outcomes.filter((o) => o !== 'sent')).toEqual(Array(6).fill('EENVELOPE 550'));
    expect(stats.messages).toBe(24);
    expect(stats.maxOpen).toBeLessThanOrEqual(3);
    expect(stats.connections).toBe(3);
  });

  it('replaces connections the relay closed while they were idle', async () => {
    const { pool, stats } = await start({ socketTimeout: 150 });
    await Promise.all([1, 2, 3].map((n) => pool.send({ from: 'b@shop.example', to: `r${n}@inbox.example` }, message(`r${n}@inbox.example`))));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stats.open).toBe(0);
    await Promise.all([4, 5, 6].map((n) => pool.send({ from: 'b@shop.example', to: `r${n}@inbox.example` }, message(`r${n}@inbox.example`))));
    expect(stats.messages).toBe(6);
    expect(stats.connections).toBe(6);
  });

  it('reports refused credentials as EAUTH', async () => {
    const { pool } = await start(
      {
        authOptional: false,
        allowInsecureAuth: true,
        onAuth(_auth, _session, callback) {
          callback(new Error('Invalid username or password'));
        },
      },
      'sender:wrong@',
    );
    await expect(pool.send({ from: 'b@shop.example', to: 'r@inbox.example' }, message('r@inbox.example'))).rejects.toMatchObject({ code: 'EAUTH' });
  });

  it('fails sends after it is closed', async () => {
    const { pool } = await start();
    pool.close();
    await expect(pool.send({ from: 'b@shop.example', to: 'r@inbox.example' }, message('r@inbox.example'))).rejects.toMatchObject({ code: 'ECONNECTION' });
  });
});

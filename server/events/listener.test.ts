import { createServer, connect, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.ts';
import { EventListener } from './listener.ts';
import { fileDatabaseUrl } from '../../test/databases.ts';

/** A TCP relay to PostgreSQL that can be cut and brought back, as a network or a restart would. */
class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  private readonly target: { host: string; port: number };

  constructor(target: { host: string; port: number }) {
    this.target = target;
  }

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => this.sockets.delete(socket));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server!.close(resolve));
  }
}

describe('the event listener', () => {
  const url = new URL(fileDatabaseUrl());
  const relay = new Relay({ host: url.hostname, port: Number(url.port) });
  let listener: EventListener | null = null;
  afterAll(() => listener?.stop());

  it('reconnects after the database was unreachable for several attempts', async () => {
    await relay.open();
    const relayed = new URL(url);
    relayed.port = String(relay.port);
    listener = new EventListener(relayed.toString(), createLogger('silent'));
    const received: string[] = [];
    listener.onRevoked((credential) => received.push(credential));
    let connections = 0;
    listener.onConnected(() => connections++);
    await listener.start();

    await relay.cut();
    // Down for more than two reconnect attempts, then back on the same port.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await relay.open();
    const deadline = Date.now() + 10_000;
    while (connections < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(2);

    const db = new pg.Client({ connectionString: fileDatabaseUrl() });
    await db.connect();
    await db.query("select pg_notify('sendline_revocations', 'session:after-the-outage')");
    await db.end();
    while (!received.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual(['session:after-the-outage']);
  });
});

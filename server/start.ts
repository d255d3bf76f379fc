import type { Server } from 'node:http';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { startEmbeddedDatabase } from './db/embedded.ts';
import { openDatabase, type Orm } from './db/orm.ts';
import { createLogger, type Logger } from './logger.ts';
import { createServices } from './services.ts';

export interface Sendline {
  config: Config;
  orm: Orm;
  log: Logger;
  server: Server;
  /** Where the API listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** Graceful: stop accepting, finish in-flight requests, close the database. */
  stop(): Promise<void>;
}

const PRUNE_EVERY_MS = 5 * 60_000;

export async function startSendline(env: Record<string, string | undefined> = process.env): Promise<Sendline> {
  const config = loadConfig(env);
  const log = createLogger(config.logLevel);
  const database = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => {} }
    : await startEmbeddedDatabase(config.dataDir, config.embeddedDatabasePassword, log);
  const orm = await openDatabase(database.url, log);
  const owner = await createServices(orm.em.fork(), config).auth.ensureFirstOwner();
  if (owner) log.info({ email: owner.email, account: owner.accountId }, 'created the first owner from ADMIN_EMAIL');

  const app = createApp(config, orm, log);
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as { port: number };
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  log.info({ url, docs: `${url}/docs`, role: config.role }, 'Sendline is listening');

  const pruner = setInterval(() => {
    createServices(orm.em.fork(), config).rateLimits.prune().catch((err) => log.warn({ err }, 'pruning rate limits failed'));
  }, PRUNE_EVERY_MS);
  pruner.unref();

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      clearInterval(pruner);
      await new Promise<void>((resolve) => {
        // Keep-alive sockets become idle as their last request ends; close them as they do.
        const sweeper = setInterval(() => server.closeIdleConnections(), 100);
        server.close(() => {
          clearInterval(sweeper);
          resolve();
        });
        server.closeIdleConnections();
      });
      await orm.close();
      await database.stop();
      log.info('Sendline stopped');
    })());
  return { config, orm, log, server, url, stop };
}

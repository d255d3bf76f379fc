import type { Config } from '../config.ts';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../db/embedded.ts';
import type { Logger } from '../logger.ts';

/** `DATABASE_URL`, or the embedded PostgreSQL of `DATA_DIR` (joined when a server runs on it, else started). */
export async function databaseOf(config: Config, log: Logger): Promise<EmbeddedDatabase> {
  return config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => {} }
    : startEmbeddedDatabase(config.dataDir, config.embeddedDatabasePassword, log, config.profile);
}

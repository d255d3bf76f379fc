import { existsSync, readdirSync } from 'node:fs';
import { dataDirOf, loadConfig } from './config.ts';
import { ConfigError } from './config-error.ts';
import { createLogger } from './logger.ts';

// The server and the commands are imported once tracing (when configured) has started: its
// instrumentations patch http, Express and pg as they are first imported.

const USAGE = `usage: bin/sendline                      serve (the default)
       bin/sendline migrate [--dry-run]    apply the pending migrations, or list them
       bin/sendline distribute             on a Citus coordinator: migrate, then distribute the tables
       bin/sendline backup FILE            the database and DATA_DIR's secrets, in one file
       bin/sendline restore FILE [--replace]  into an empty database (--replace: drop what it holds)`;

// A command's own output is its answer; the log says only what went wrong.
const commandLogger = (level: string) => createLogger(process.env.LOG_LEVEL ? level : 'warn');

const commands: Record<string, (args: string[]) => Promise<number>> = {
  migrate: async (args) => {
    const config = loadConfig();
    const { migrateCommand } = await import('./commands/migrate.ts');
    return migrateCommand(args, config, commandLogger(config.logLevel));
  },
  distribute: async () => {
    const config = loadConfig();
    const { distributeCommand } = await import('./commands/distribute.ts');
    return distributeCommand(config, commandLogger(config.logLevel));
  },
  backup: async (args) => {
    const config = loadConfig();
    const { backupCommand } = await import('./commands/backup.ts');
    return backupCommand(args, config, commandLogger(config.logLevel));
  },
  restore: async (args) => {
    const dataDir = dataDirOf(process.env);
    const before = new Set(existsSync(dataDir) ? readdirSync(dataDir) : []);
    const config = loadConfig();
    const { restoreCommand } = await import('./commands/backup.ts');
    return restoreCommand(args, config, commandLogger(config.logLevel), before);
  },
};

async function serve() {
  const config = loadConfig();
  const tracing = config.tracing && (await (await import('./tracing/sdk.ts')).startTracing(config.tracing));
  const { startSendline } = await import('./start.ts');
  const starting = startSendline(process.env, { config, tracing });
  // Listening before the server starts: a signal that comes while it starts stops it once it has.
  // A Ctrl-C under `npm start` comes twice (from the terminal, and forwarded by npm): a signal
  // while stopping changes nothing.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void starting.then(
      (sendline) => {
        sendline.log.info({ signal }, 'shutting down');
        return sendline.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            sendline.log.error({ err }, 'shutdown failed');
            process.exit(1);
          },
        );
      },
      () => process.exit(1),
    );
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, stop);
  await starting;
}

const [command, ...args] = process.argv.slice(2);
try {
  if (command === undefined || command === 'serve') await serve();
  else if (Object.hasOwn(commands, command)) process.exit(await commands[command](args));
  else {
    console.error(USAGE);
    process.exit(2);
  }
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(2);
  }
  if (command && command !== 'serve' && error instanceof Error) {
    console.error(`${command} failed: ${error.message}`);
    process.exit(1);
  }
  throw error;
}

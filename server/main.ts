import { ConfigError, loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startSendline } from './start.ts';
import { migrateCommand } from './commands/migrate.ts';

const USAGE = `usage: bin/sendline                      serve (the default)
       bin/sendline migrate [--dry-run]    apply the pending migrations, or list them`;

const commands: Record<string, (args: string[]) => Promise<number>> = {
  migrate: (args) => {
    const config = loadConfig();
    // A command's own output is its answer; the log says only what went wrong.
    return migrateCommand(args, config, createLogger(process.env.LOG_LEVEL ? config.logLevel : 'warn'));
  },
};

async function serve() {
  const sendline = await startSendline();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      sendline.log.info({ signal }, 'shutting down');
      sendline.stop().then(
        () => process.exit(0),
        (err) => {
          sendline.log.error({ err }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
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

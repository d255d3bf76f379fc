import { ConfigError } from './config.ts';
import { startSendline } from './start.ts';

try {
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
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`Configuration error: ${error.message}`);
    process.exit(2);
  }
  throw error;
}

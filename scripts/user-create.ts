/**
 * Creates a user: `npm run user:create -- --email a@b.c --password … [--name …] [--role owner|admin|member] [--account acc_…]`.
 * Without --account, a new account is created with the user as its owner.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { startEmbeddedDatabase } from '../server/db/embedded.ts';
import { openDatabase } from '../server/db/orm.ts';
import { entities } from '../server/entities.ts';
import { createLogger } from '../server/logger.ts';
import { createAccountServices } from '../server/services.ts';
import type { Principal } from '../server/principal.ts';
import { userJson } from '../server/auth/json.ts';

const { values } = parseArgs({
  options: {
    email: { type: 'string' },
    password: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string' },
    account: { type: 'string' },
    'account-name': { type: 'string' },
  },
});

if (!values.email || !values.password) {
  console.error('usage: npm run user:create -- --email EMAIL --password PASSWORD [--name NAME] [--role owner|admin|member] [--account ACCOUNT_ID]');
  process.exit(2);
}
if (values.password.length < 10) {
  console.error('the password must be at least 10 characters');
  process.exit(2);
}
const role = (values.role ?? (values.account ? 'member' : 'owner')) as 'owner' | 'admin' | 'member';
if (!['owner', 'admin', 'member'].includes(role)) {
  console.error('--role must be owner, admin or member');
  process.exit(2);
}

const config = loadConfig();
const log = createLogger('warn');
const database = config.databaseUrl
  ? { url: config.databaseUrl, stop: async () => {} }
  : await startEmbeddedDatabase(config.dataDir, config.embeddedDatabasePassword, log, config.profile);
const orm = await openDatabase(database.url, entities, log);
try {
  const services = createAccountServices(orm.em.fork(), config);
  const input = { email: values.email, password: values.password, name: values.name ?? values.email.split('@')[0] };
  const user = values.account
    ? await services.users.create(
        {
          accountId: values.account,
          via: 'session',
          scopes: ['read', 'write'],
          userId: null,
          role: 'owner',
          sessionId: null,
          keyId: null,
          rateLimitPerMinute: 0,
          counted: null,
        } satisfies Principal,
        { ...input, role },
      )
    : userJson(await services.auth.createOwner({ ...input, accountName: values['account-name'] ?? 'Default' }));
  console.log(JSON.stringify({ id: user.id, email: user.email, role: user.role, account_id: user.account_id }));
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await orm.close();
  await database.stop();
}

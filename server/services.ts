import type { Config } from './config.ts';
import type { EntityManager } from './db/orm.ts';
import { AuthRepository } from './auth/repository.ts';
import { AuthService } from './auth/service.ts';
import { ApiKeyRepository } from './api-keys/repository.ts';
import { ApiKeyService } from './api-keys/service.ts';
import { UserRepository } from './users/repository.ts';
import { UserService } from './users/service.ts';
import { RateLimitStore } from './http/rate-limit.ts';
import { ContactRepository } from './contacts/repository.ts';
import { ContactService } from './contacts/service.ts';

/** The composition root: every service, wired to one unit of work. */
export function createServices(em: EntityManager, config: Config) {
  const authRepo = new AuthRepository(em);
  const rateLimits = new RateLimitStore(em);
  return {
    em,
    rateLimits,
    auth: new AuthService(authRepo, config, rateLimits),
    users: new UserService(new UserRepository(em), authRepo),
    apiKeys: new ApiKeyService(new ApiKeyRepository(em), config.defaultKeyRateLimit),
    contacts: new ContactService(new ContactRepository(em), em),
  };
}

export type Services = ReturnType<typeof createServices>;

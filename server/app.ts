import express, { type Express } from 'express';
import { createServices, type Runtime, type Services } from './services.ts';
import { sqlOf } from './db/kysely.ts';
import { apiRouter } from './http/api-router.ts';
import { authenticate } from './auth/middleware.ts';
import { AnswerBox } from './idempotency/sealing.ts';
import { SealedIdempotencyKeys } from './idempotency/keys.ts';
import { loadContract } from './contract/document.ts';
import { docsRouter } from './docs/routes.ts';
import { errorHandler } from './http/errors.ts';
import { Problem } from './contract/problem.ts';
import { requestLog } from './http/request-log.ts';
import { apiVersionHeader, canonicalApiPath } from './http/versioning.ts';
import { authHandlers } from './auth/routes.ts';
import { userHandlers } from './users/routes.ts';
import { apiKeyHandlers } from './api-keys/routes.ts';
import { contactHandlers } from './contacts/routes.ts';
import { importHandlers } from './imports/routes.ts';
import { campaignHandlers } from './campaigns/routes.ts';
import { trackingHandlers } from './tracking/routes.ts';
import { conversionHandlers } from './conversions/routes.ts';
import { analyticsHandlers } from './analytics/routes.ts';
import { webhookHandlers } from './webhooks/routes.ts';
import { domainHandlers } from './domains/routes.ts';
import { AUTOMATION_JSON_LIMITS, automationHandlers } from './automations/routes.ts';
import { eventHandlers } from './events/routes.ts';
import { fieldHandlers } from './fields/routes.ts';
import { segmentHandlers } from './segments/routes.ts';
import { TAG_BULK_JSON_LIMITS, tagHandlers } from './tags/routes.ts';
import { templateHandlers } from './templates/routes.ts';
import { listHandlers } from './lists/routes.ts';
import { publicCors } from './lists/cors.ts';
import { LIST_MEMBER_JSON_LIMITS } from './lists/routes.ts';
import { emailHandlers, EMAIL_JSON_LIMITS } from './emails/routes.ts';
import { suppressionHandlers } from './suppressions/routes.ts';
import { topicHandlers } from './topics/routes.ts';
import { exportHandlers } from './exports/routes.ts';
import { dashboardRouter } from './dashboard/router.ts';
import { accountHandlers } from './account/routes.ts';

export const implementedHandlers = {
  ...authHandlers,
  ...userHandlers,
  ...apiKeyHandlers,
  ...contactHandlers,
  ...importHandlers,
  ...campaignHandlers,
  ...trackingHandlers,
  ...conversionHandlers,
  ...analyticsHandlers,
  ...webhookHandlers,
  ...domainHandlers,
  ...automationHandlers,
  ...eventHandlers,
  ...fieldHandlers,
  ...segmentHandlers,
  ...tagHandlers,
  ...templateHandlers,
  ...listHandlers,
  ...emailHandlers,
  ...suppressionHandlers,
  ...topicHandlers,
  ...exportHandlers,
  ...accountHandlers,
};

export function createApp(runtime: Runtime): Express {
  const { config, orm, log } = runtime;
  const doc = loadContract();
  const app = express();
  app.disable('x-powered-by');
  // API answers change with every write; a weak ETag per response costs a hash and helps nobody.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  app.use(requestLog(log));
  app.use(apiVersionHeader);
  app.use(canonicalApiPath);
  app.use(docsRouter(doc, config.publicUrl));
  app.use(dashboardRouter());
  app.use('/api/v1/public', publicCors);
  app.use(
    '/api/v1',
    apiRouter<Services>(
      doc,
      {
        config,
        log,
        services: () => createServices(runtime),
        authentication: { authenticate, countRequest: (userId, services) => services.auth.countRequest(userId) },
        idempotencyKeys: new SealedIdempotencyKeys(sqlOf(orm.em.fork()), new AnswerBox(config.secretKeys)),
      },
      implementedHandlers,
      {
        jsonLimits: {
          ContactImports_create: 16 * 1024 * 1024,
          ...LIST_MEMBER_JSON_LIMITS,
          ...TAG_BULK_JSON_LIMITS,
          ...EMAIL_JSON_LIMITS,
          ...AUTOMATION_JSON_LIMITS,
        },
      },
    ),
  );
  app.use((req) => {
    throw new Problem(404, 'not_found', `No route ${req.path}.`);
  });
  app.use(errorHandler(log));
  return app;
}

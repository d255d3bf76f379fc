import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { startEmbeddedDatabase } from './db/embedded.ts';
import { nativePool, openDatabase, withSchemaLock } from './db/orm.ts';
import { entities } from './entities.ts';
import { sqlOf } from './db/kysely.ts';
import { Transactions } from './db/transactions.ts';
import { readSchemaState } from './db/schema.ts';
import { requireDistributed } from './db/citus.ts';
import { createLogger, type Logger } from './logger.ts';
import { Metrics } from './metrics/metrics.ts';
import { observeRequest } from './metrics/http.ts';
import { Probes, startMetricsListener } from './probes/probes.ts';
import { registerGauges } from './gauges.ts';
import type { Tracing } from './tracing/sdk.ts';
import { analysesSettled, logAnalysesTo } from './db/statistics.ts';
import { Queue } from './jobs/queue.ts';
import { startImportWorker } from './imports/job.ts';
import { startExportWorker } from './exports/job.ts';
import { startSendingWorker, type SendingWorker } from './sending/job.ts';
import { startCampaignSending } from './campaigns/send-job.ts';
import { TransactionalSender } from './emails/sender.ts';
import { JourneyRunner } from './automations/runner.ts';
import { JourneySweeps } from './automations/sweeps.ts';
import { startCaptureServer } from './sending/capture.ts';
import { MailTransport } from './sending/transport.ts';
import { DkimSigners, SigningTransport } from './sending/dkim.ts';
import { TemplateThread } from './rendering/template-thread.ts';
import { TokenSigner } from './tracked-links/tokens.ts';
import { VerpTokens } from './tracked-links/verp.ts';
import { TrackingRecorder } from './tracking/recorder.ts';
import { FeedbackService } from './tracking/feedback.ts';
import { page, publicRoutes } from './tracking/public-routes.ts';
import { startBounceServer } from './tracking/inbound.ts';
import { startSubmissionServer } from './emails/submission.ts';
import { startEmailContentPruning } from './emails/job.ts';
import { webhookSecretBox } from './webhooks/signing.ts';
import { domainKeyBox } from './domains/box.ts';
import { resealDomainKeys } from './domains/reseal.ts';
import { checkSharedSecrets } from './secrets/shared-database.ts';
import { idempotencyStore } from './idempotency/store.ts';
import { WebhookWorker } from './webhooks/worker.ts';
import { resealWebhookSecrets } from './webhooks/reseal.ts';
import { EventListener } from './events/listener.ts';
import { startAccess } from './auth/access.ts';
import { accountTimeZone } from './auth/account-lookups.ts';
import { KeyUsage } from './api-keys/usage.ts';
import { attachEventSocket } from './events/socket-routes.ts';
import {
  campaignPageLookups,
  campaignRecords,
  contactRecords,
  createServices,
  journeyDeps,
  outcomeRecords,
  sendingIdentities,
  type Runtime,
} from './services.ts';
import { setSecurityHeaders } from './http/security-headers.ts';
import { Problem } from './contract/problem.ts';
import { answerClientErrors } from './http/client-errors.ts';
import type { TrustProxy } from './net/client-address.ts';
import { confirmationPages } from './lists/pages.ts';
import { campaignPages } from './campaigns/pages.ts';
import { ConfirmationSigner } from './lists/tokens.ts';
import { startConfirmationSender } from './lists/confirmations.ts';

export interface Sendline extends Runtime {
  server: Server;
  /** Where the API listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The inbound SMTP listener for bounce and complaint reports, when configured. */
  bounceSmtpPort: number | null;
  /** The SMTP submission listener, when configured. */
  submissionPort: number | null;
  /** Graceful: stop accepting, finish requests and jobs in flight, close the database. */
  stop(): Promise<void>;
}

const PRUNE_EVERY_MS = 5 * 60_000;
const WEBHOOK_TICK_MS = 1000;
/** Batches of domains one re-check run looks up at most; the rest wait for the next run. */
const RECHECK_ROUNDS = 20;
/** Re-checks run four times per `DOMAIN_RECHECK_SECONDS`, and at least hourly. */
const recheckEveryMs = (recheckSeconds: number) => Math.min(3_600_000, Math.max(250, recheckSeconds * 250));

export interface StartOptions {
  /** Read from `env` when not given. */
  config?: Config;
  /** Tracing started before the server was imported (main.ts): stopped, its spans exported, at the end of `stop`. */
  tracing?: Tracing | null;
}

export async function startSendline(env: Record<string, string | undefined> = process.env, options: StartOptions = {}): Promise<Sendline> {
  const config = options.config ?? loadConfig(env);
  const log = createLogger(config.logLevel);
  const metrics = new Metrics();
  const probes = new Probes(metrics, config.metrics.token);
  // The port opens first: probes answer while the database starts and migrates; the rest waits.
  let handle: RequestListener = (req, res) => {
    setSecurityHeaders(res);
    if (!probes.handle(req, res)) unavailable(res);
  };
  const server = createServer((req, res) => handle(req, res));
  answerClientErrors(server);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
    server.listen(config.port, config.host);
  });
  let metricsListener: Server | null = null;
  try {
    if (config.metrics.port !== null) metricsListener = await startMetricsListener(metrics, config.metrics.port, config.metrics.host);
    return await startOn(server, config, log, { metrics, probes, metricsListener, tracing: options.tracing ?? null }, (serve) => (handle = serve));
  } catch (error) {
    server.close();
    metricsListener?.close();
    throw error;
  }
}

/** A request before the server is ready for it. */
function unavailable(res: ServerResponse): void {
  const problem = new Problem(503, 'starting', 'Sendline is starting; try again shortly.');
  res.writeHead(503, { 'Content-Type': 'application/problem+json', 'Retry-After': '5' });
  res.end(JSON.stringify(problem.toJSON()));
}

async function startOn(
  server: Server,
  config: Config,
  log: Logger,
  { metrics, probes, metricsListener, tracing }: { metrics: Metrics; probes: Probes; metricsListener: Server | null; tracing: Tracing | null },
  serve: (handler: RequestListener) => void,
): Promise<Sendline> {
  logAnalysesTo(log);
  const { allowHttp, allowPrivateNetworks } = config.webhooks;
  if (allowHttp || allowPrivateNetworks) {
    const on = [allowHttp && 'WEBHOOK_ALLOW_HTTP', allowPrivateNetworks && 'WEBHOOK_ALLOW_PRIVATE_NETWORKS'].filter(Boolean).join(' and ');
    log.warn(`${on} on: webhooks may go unencrypted or to this machine's network, for development only`);
  }
  const database = config.databaseUrl
    ? { url: config.databaseUrl, stop: async () => {} }
    : await startEmbeddedDatabase(config.dataDir, config.embeddedDatabasePassword, log, config.profile);
  probes.phase = 'migrating';
  const orm = await openDatabase(database.url, entities, log, config.databasePoolSize);
  await checkSharedSecrets(config, orm, log).catch(async (error: unknown) => {
    await orm.close();
    await database.stop();
    throw error;
  });
  const pool = await nativePool(orm);
  await requireDistributed(pool).catch(async (error: unknown) => {
    await orm.close();
    await database.stop();
    throw error;
  });
  const transactions = new Transactions(pool);
  const { applied } = await readSchemaState(pool);
  const queue = await withSchemaLock(database.url, () => Queue.open(pool, log));
  probes.phase = 'starting';
  const capture = config.sending.smtpUrl || config.sending.relays ? null : await startCaptureServer(config.dataDir, log);
  // Under SMTP_RELAYS, the first relay: test sends and confirmations take no route.
  const relayUrl = config.sending.relays?.relays[0].url ?? config.sending.smtpUrl ?? capture!.url;
  // Test sends and confirmations only (campaigns go through the sending threads' pools): one
  // connection, so the process stays within SMTP_POOL_SIZE plus this one.
  const transport = new SigningTransport(new MailTransport(relayUrl, { ...config.sending, poolSize: 1 }), new DkimSigners(config.sending.dkim));
  const signer = new TokenSigner(config.secretKeys);
  const templates = new TemplateThread({ publicUrl: config.publicUrl, secretKeys: config.secretKeys });
  const secretBox = webhookSecretBox(config.secretKeys);
  await resealWebhookSecrets(sqlOf(orm.em.fork()), secretBox, log);
  const domainKeys = domainKeyBox(config.secretKeys);
  await resealDomainKeys(sqlOf(orm.em.fork()), domainKeys, log);
  const listener = new EventListener(database.url, log);
  await listener.start();
  const access = startAccess(orm, listener, { invalidKeysPerMinute: config.invalidApiKeysPerMinute }, log);
  const keyUsage = new KeyUsage(orm.em.fork(), log);
  const journeys = new JourneyRunner(
    journeyDeps({ transactions, orm, templates, log, signer, publicUrl: config.publicUrl, box: secretBox, webhooks: config.webhooks }),
  );
  const runtime: Runtime = {
    config,
    databaseUrl: database.url,
    orm,
    pool,
    transactions,
    queue,
    transport,
    templates,
    signer,
    secretBox,
    domainKeyBox: domainKeys,
    log,
    schema: { migration: applied.at(-1) ?? null, migrations: applied.length },
    access,
    keyUsage,
    journeys,
    metrics,
  };
  const webhooks = config.role === 'api' ? null : new WebhookWorker(sqlOf(orm.em.fork()), transactions, secretBox, config.webhooks, log, metrics);
  if (webhooks) listener.onEvents(() => webhooks.wake());
  const feedback = new FeedbackService(transactions, sqlOf(orm.em), campaignRecords, contactRecords, metrics);
  const bounces =
    config.tracking.bounceSmtpPort === null
      ? null
      : await startBounceServer(config.tracking.bounceSmtpPort, config.tracking.bounceSmtpHost, feedback, new VerpTokens(config.secretKeys), log);

  const submission = config.submission === null ? null : await startSubmissionServer(config.submission, () => createServices(runtime), log);

  const owner = await createServices(runtime).auth.ensureFirstOwner();
  if (owner) log.info({ email: owner.email, account: owner.accountId }, 'created the first owner from ADMIN_EMAIL');

  const shutdown = new AbortController();
  let sending: SendingWorker | null = null;
  if (config.role !== 'api') {
    await startImportWorker(
      {
        queue,
        db: sqlOf(orm.em.fork()),
        transactions,
        log,
        metrics,
        thread: { databaseUrl: database.url, limits: config.imports, logLevel: config.logLevel },
      },
      shutdown.signal,
    );
    await startExportWorker({ queue, db: sqlOf(orm.em.fork()), log, run: (exportId) => createServices(runtime).exports.run(exportId) });
    sending = startSendingWorker(config, relayUrl, database.url, log, (threads) => {
      const startCampaign = (accountId: string, campaignId: string) => createServices(runtime).campaigns.start(accountId, campaignId);
      const identities = sendingIdentities(runtime);
      startCampaignSending(
        { orm, transactions, queue, config, templates, threads, records: outcomeRecords, identities, metrics, log, startCampaign },
        shutdown.signal,
        listener,
      );
      const transactional = new TransactionalSender(transactions, sqlOf(orm.em.fork()), threads, config.sending, log, outcomeRecords, identities, metrics);
      transactional.start(shutdown.signal);
      journeys.start(shutdown.signal);
      return [transactional, journeys];
    });
    queue.every('rate-limits.prune', PRUNE_EVERY_MS, () => createServices(runtime).rateLimits.prune());
    queue.every('idempotency-keys.prune', PRUNE_EVERY_MS, async () => void (await idempotencyStore.prune(sqlOf(orm.em.fork()))));
    // Deliveries whose retry came due: events wake the webhook worker of every process themselves.
    queue.every('webhooks.tick', WEBHOOK_TICK_MS, () => Promise.resolve(webhooks!.wake()));
    const sweeps = new JourneySweeps(transactions, sqlOf(orm.em.fork()), journeys, log, accountTimeZone);
    queue.every('automations.sweep', config.automations.sweepSeconds * 1000, () => sweeps.run());
    queue.every('domains.recheck', recheckEveryMs(config.domains.recheckSeconds), async () => {
      for (let round = 0; round < RECHECK_ROUNDS && !shutdown.signal.aborted; round++) {
        if (!(await createServices(runtime).domains.recheckDue(config.domains.recheckSeconds))) break;
      }
    });
    startConfirmationSender({
      queue,
      db: sqlOf(orm.em.fork()),
      transactions,
      // Confirmations go out as the server: signed with DKIM_DOMAIN's key when it is set.
      mailer: { sendMime: (envelope, mime) => transport.sendMime(envelope, mime, null) },
      secretKeys: config.secretKeys,
      publicUrl: config.publicUrl,
      log,
    });
    startEmailContentPruning({ queue, db: sqlOf(orm.em.fork()), log, retentionDays: config.emailContentRetentionDays });
    await queue.start();
    webhooks!.start();
  }

  const app = createApp(runtime);
  // The tracking routes and WebSocket upgrades bypass Express; they judge X-Forwarded-For by its rule.
  const trustProxy = app.get('trust proxy fn') as TrustProxy;
  const recorder = new TrackingRecorder({
    transactions,
    signer,
    trustProxy,
    settings: config.tracking,
    log,
    campaigns: campaignRecords,
    contacts: contactRecords,
    metrics,
  });
  registerGauges(metrics, { db: sqlOf(orm.em.fork()), pool, queue, recorder });
  const tracking = publicRoutes({ signer, recorder, feedback, log });
  const confirmations = confirmationPages({
    db: sqlOf(orm.em.fork()),
    transactions,
    signer: new ConfirmationSigner(config.secretKeys),
    contacts: () => createServices(runtime).contacts,
    page,
    log,
  });
  const campaignPagesOf = campaignPages({ orm, signer, templates, publicUrl: config.publicUrl, lookups: campaignPageLookups, page, log });
  serve((req, res) => {
    observeRequest(metrics, req, res);
    setSecurityHeaders(res);
    if (!probes.handle(req, res) && !tracking(req, res) && !confirmations(req, res) && !campaignPagesOf(req, res)) app(req, res);
  });
  const sockets = attachEventSocket(server, { db: sqlOf(orm.em.fork()), listener, services: () => createServices(runtime), config, trustProxy, log });
  probes.serve(pool, runtime.schema);
  const { port } = server.address() as { port: number };
  const url = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`;
  const metricsUrl = metricsListener && `http://${config.metrics.host}:${(metricsListener.address() as { port: number }).port}/metrics`;
  log.info({ url, docs: `${url}/docs`, role: config.role, profile: config.profile, ...(metricsUrl ? { metrics: metricsUrl } : {}) }, 'Sendline is listening');

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      const started = Date.now();
      // Load balancers see /readyz fail, and stop sending work, before the listener closes.
      probes.phase = 'stopping';
      if (config.shutdownDelaySeconds) await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
      shutdown.abort();
      await Promise.all([
        sockets.close(),
        webhooks?.stop(),
        new Promise<void>((resolve) => {
          // Keep-alive sockets become idle as their last request ends; close them as they do.
          const sweeper = setInterval(() => server.closeIdleConnections(), 100);
          server.close(() => {
            clearInterval(sweeper);
            resolve();
          });
          server.closeIdleConnections();
        }),
        queue.stop(),
        bounces?.stop(),
        submission?.stop(),
        new Promise((resolve) => (metricsListener ? metricsListener.close(resolve) : resolve(null))),
      ]);
      await sending?.close();
      // Analyses that requests started, before the pool they run on closes.
      await analysesSettled();
      await templates.close();
      await recorder.close();
      await Promise.all([access.close(), keyUsage.close()]);
      await listener.stop();
      transport.close();
      await capture?.stop();
      await orm.close();
      await database.stop();
      await tracing?.shutdown();
      log.info({ ms: Date.now() - started }, 'Sendline stopped');
    })());
  return { ...runtime, server, url, bounceSmtpPort: bounces?.port ?? null, submissionPort: submission?.port ?? null, stop };
}

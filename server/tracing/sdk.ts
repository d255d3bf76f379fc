import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';
import { scrubbed, withoutLiterals } from './redaction.ts';

export interface Tracing {
  /** Exports the spans still buffered, then stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry with the http, Express and pg instrumentations, exporting over OTLP/HTTP.
 * It must run before those modules are first imported: main.ts imports the server after it. The
 * loader hook wraps only the modules the instrumentations name.
 */
export async function startTracing(settings: { endpoint: string; serviceName: string }): Promise<Tracing> {
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register('import-in-the-middle/hook.mjs', import.meta.url, registerOptions);
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { ExpressInstrumentation, ExpressLayerType }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  class ScrubbingExporter extends OTLPTraceExporter {
    override export(...[spans, done]: Parameters<InstanceType<typeof OTLPTraceExporter>['export']>): void {
      super.export(spans.map(scrubbed), done);
    }
  }
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    traceExporter: new ScrubbingExporter({ url: `${settings.endpoint}/v1/traces` }),
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation({
        // The API only: tracking pixels, links and public pages carry signed tokens in their
        // paths and come by the thousand a second; probes come every few seconds.
        ignoreIncomingRequestHook: (req) => !(req.url ?? '').startsWith('/api/'),
        // Webhook deliveries have spans of their own; a client span would name the endpoint's URL
        // (paths often hold its secret) and send it a traceparent header.
        ignoreOutgoingRequestHook: () => true,
        // A query string may hold addresses (`?email=`).
        requestHook: (span, request) => {
          if ('url' in request && request.url?.includes('?')) span.setAttribute('url.query', '[redacted]');
        },
      }),
      // Route handlers and routers only: a span per middleware (body parsing, validation, …) is noise.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      new PgInstrumentation({
        // Queries inside a request, job, batch or delivery only: the queues' polling would be most spans.
        requireParentSpan: true,
        // The ORM writes values into the SQL text: addresses, hashes, sealed secrets.
        requestHook: (span, { query }) => span.setAttribute('db.query.text', withoutLiterals(query.text)),
      }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  return { shutdown: () => sdk.shutdown() };
}

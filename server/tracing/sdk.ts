import { register } from 'node:module';
import { createAddHookMessageChannel } from 'import-in-the-middle';

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
  const sdk = new NodeSDK({
    serviceName: settings.serviceName,
    traceExporter: new OTLPTraceExporter({ url: `${settings.endpoint}/v1/traces` }),
    metricReaders: [],
    instrumentations: [
      new HttpInstrumentation(),
      // Route handlers and routers only: a span per middleware (body parsing, validation, …) is noise.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
      // Queries inside a request, job, batch or delivery only: the queues' polling would be most spans.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  return { shutdown: () => sdk.shutdown() };
}

import "server-only"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BatchSpanProcessor, NodeTracerProvider } from "@opentelemetry/sdk-trace-node"
import { onTracesFlush } from "@/lib/tracing"

/**
 * OpenTelemetry's SDK: loaded only when OTEL_EXPORTER_OTLP_ENDPOINT is set (instrumentation.ts
 * imports this file then, and never otherwise). Spans go in batches over OTLP/HTTP (JSON)
 * to `<endpoint>/v1/traces`; the provider also gives Next.js's own request spans somewhere to go.
 * At SIGTERM the spans still batched go out before the process ends (lib/tracing.ts, flushTracesBeforeExit).
 */
export function startTracing(options: { endpoint: string; serviceName: string; batchDelayMs?: number }): NodeTracerProvider {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces` })
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName }),
    spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: options.batchDelayMs ?? 2000 })],
  })
  // Registers the provider, W3C trace-context propagation and an AsyncLocalStorage context manager.
  provider.register()
  // The graceful shutdown sends what is still batched before the process ends (bounded).
  onTracesFlush(() => provider.shutdown())
  return provider
}

import { type Attributes, type Span, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api"

/**
 * Spans of the console's own work, through OpenTelemetry's API only. Nothing here exports
 * anything: with OTEL_EXPORTER_OTLP_ENDPOINT unset no tracer provider is registered (the
 * SDK is never loaded, see lib/tracing-sdk.ts) and these calls are the API's no-ops.
 * Attributes name routes, roles, operations, statuses, codes and ref_ids: never a secret,
 * a token, an amount-bearing body or an email.
 */

const tracer = () => trace.getTracer("treasury-console")

/** Runs `work` inside a new active span named `name`; a thrown error marks the span failed (by its name, never its message). */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span)
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR })
      span.setAttribute("error.type", error instanceof Error ? error.name : "unknown")
      throw error
    } finally {
      span.end()
    }
  })
}

/** Adds attributes to the active span, if any. */
export function annotate(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes)
}

/** The active trace's id, when a span is being recorded (traces on); undefined otherwise. */
export function activeTraceId(): string | undefined {
  const span = trace.getActiveSpan()
  if (!span?.isRecording()) return undefined
  return span.spanContext().traceId
}

/** Writes the active trace into `headers` (W3C traceparent), so the service's own traces can join it. */
export function injectTraceContext(headers: Record<string, string>): void {
  propagation.inject(context.active(), headers)
}

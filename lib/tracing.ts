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

/**
 * Runs one group of database queries (an intent write, a policy read, a usage read...) in a
 * span named `console.<group>`, marked as database work. Its attributes name the group and
 * what the caller adds (an operation, a ref_id): never a value the queries carry.
 */
export function inDbSpan<T>(group: string, work: (span: Span) => Promise<T>, attributes: Attributes = {}): Promise<T> {
  return inSpan(`console.${group}`, { "db.system.name": "postgresql", "console.db.group": group, ...attributes }, work)
}

// ---------------------------------------------------------------- flushing at exit

/** How long the spans still batched may take to go out when the process ends. */
export const TRACE_FLUSH_MS = 2000

const flushing = globalThis as unknown as { __consoleTraceFlush?: () => Promise<void> }

/** The SDK's flush (lib/tracing-sdk.ts registers its provider's shutdown): spans batched so far are sent. */
export function onTracesFlush(flush: () => Promise<void>): void {
  flushing.__consoleTraceFlush = flush
}

/** Sends the spans still batched, for at most `boundMs`: true when they went out. Nothing to do without tracing. */
export async function flushTraces(boundMs = TRACE_FLUSH_MS): Promise<boolean> {
  const flush = flushing.__consoleTraceFlush
  if (!flush) return true
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    return await Promise.race([
      flush().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), boundMs)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * From now on the process's exit waits for the spans still batched (at most `boundMs`), so
 * the last requests' spans are not lost: the graceful shutdown calls this, and Next's
 * handler, which ends the process with process.exit once its server has closed, then exits
 * after the flush. The first exit's code wins. Nothing changes without tracing.
 */
export function flushTracesBeforeExit(boundMs = TRACE_FLUSH_MS): void {
  if (!flushing.__consoleTraceFlush) return
  const exit = process.exit.bind(process)
  let exiting = false
  process.exit = ((code?: number | string | null) => {
    if (exiting) return undefined as never
    exiting = true
    void flushTraces(boundMs).finally(() => exit(code))
    return undefined as never
  })
}

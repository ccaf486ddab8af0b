import { trace } from "@opentelemetry/api"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node"

/**
 * The spans an operator's collector receives (docs/production.md, "Traces"), kept in memory
 * for the test file that calls this (at its top): the global tracer provider is set to one
 * that hands every finished span to the exporter returned.
 */
export function spansInMemory(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter()
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
  return exporter
}

// A local OTLP/HTTP (JSON) trace receiver for `--traced`: it answers every export 200 and
// counts what it got, so the traced console's exporter does its whole work (batch, encode,
// send) against something that answers at once, on this machine. It keeps each span's
// name, ids and times (never its attributes), so a section can show where a slow
// request's time went (the hung-db section does, for its slowest creates).
import http from "node:http"
import type { AddressInfo } from "node:net"

/** One span as received: its trace, its parent, and its start and end (ms since the epoch). */
export interface ReceivedSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  name: string
  startMs: number
  endMs: number
}

export interface OtlpReceiver {
  origin: string
  /** Exports received, and the spans in them. */
  counts(): { exports: number; spans: number }
  /** The spans of one trace, by start. */
  trace(traceId: string): ReceivedSpan[]
  close(): Promise<void>
}

interface OtlpSpan {
  traceId?: string
  spanId?: string
  parentSpanId?: string
  name?: string
  startTimeUnixNano?: string | number
  endTimeUnixNano?: string | number
}

interface OtlpExport {
  resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[]
}

/** At most this many spans are kept (the oldest go first). */
const KEPT = 50_000

const nanosToMs = (value: string | number | undefined) => Number(BigInt(value ?? 0) / 1000n) / 1000

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let exports = 0
  let spans = 0
  const kept: ReceivedSpan[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        exports++
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport
          for (const r of body.resourceSpans ?? [])
            for (const s of r.scopeSpans ?? [])
              for (const span of s.spans ?? []) {
                spans++
                kept.push({
                  traceId: String(span.traceId ?? ""),
                  spanId: String(span.spanId ?? ""),
                  parentSpanId: String(span.parentSpanId ?? ""),
                  name: String(span.name ?? ""),
                  startMs: nanosToMs(span.startTimeUnixNano),
                  endMs: nanosToMs(span.endTimeUnixNano),
                })
                if (kept.length > KEPT) kept.shift()
              }
        } catch {
          // Counted as an export; a body that is not JSON holds no span we can count.
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ exports, spans }),
    trace: (traceId) => kept.filter((s) => s.traceId === traceId).sort((a, b) => a.startMs - b.startMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

// A local OTLP/HTTP (JSON) trace receiver for `--traced`: it answers every export 200 and
// counts what it got, so the traced console's exporter does its whole work (batch, encode,
// send) against something that answers at once, on this machine.
import http from "node:http"
import type { AddressInfo } from "node:net"

export interface OtlpReceiver {
  origin: string
  /** Exports received, and the spans in them. */
  counts(): { exports: number; spans: number }
  close(): Promise<void>
}

interface OtlpExport {
  resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[]
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  let exports = 0
  let spans = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        exports++
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpExport
          for (const r of body.resourceSpans ?? []) for (const s of r.scopeSpans ?? []) spans += s.spans?.length ?? 0
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
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

// A transparent HTTP proxy in front of the standalone sandbox that counts what the service
// receives: token requests and quotes calls, each with its arrival time. The console under
// test is pointed at it (UPSTREAM_BASE_URL / UPSTREAM_TOKEN_URL), so the counts are taken on
// the service's side of the wire, whatever the console believes it sent.
import http from "node:http"
import type { AddressInfo } from "node:net"

export interface Arrival {
  at: number
  method: string
  path: string
  /** The service's answer status, once it answered. */
  status?: number
}

export interface CountingProxy {
  origin: string
  arrivals: Arrival[]
  /** Arrivals since `from` (ms since the epoch) matching `test`. */
  count(test: (a: Arrival) => boolean, from?: number, to?: number): number
  close(): Promise<void>
}

export const isTokenRequest = (a: Arrival) => a.method === "POST" && a.path.endsWith("/oauth2/token")
export const isQuotesCall = (a: Arrival) => a.method === "GET" && /\/v2\/quotes$/.test(a.path)

export function startCountingProxy(target: string, port: number): Promise<CountingProxy> {
  const upstream = new URL(target)
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 })
  const arrivals: Arrival[] = []
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://proxy.invalid")
    const arrival: Arrival = { at: Date.now(), method: req.method ?? "GET", path: url.pathname }
    arrivals.push(arrival)
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        arrival.status = answer.statusCode
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    forward.on("error", () => {
      if (!res.headersSent) res.writeHead(502)
      res.end()
    })
    req.pipe(forward)
  })
  server.keepAliveTimeout = 30_000
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const { port: bound } = server.address() as AddressInfo
      resolve({
        origin: `http://127.0.0.1:${bound}`,
        arrivals,
        count(test, from = 0, to = Number.POSITIVE_INFINITY) {
          return arrivals.filter((a) => a.at >= from && a.at <= to && test(a)).length
        },
        close: () =>
          new Promise<void>((done) => {
            agent.destroy()
            server.closeAllConnections()
            server.close(() => done())
          }),
      })
    })
  })
}

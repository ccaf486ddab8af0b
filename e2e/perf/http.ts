// A small HTTP/1.1 client on node:http with keep-alive: the load generator shares two
// cores with the servers it measures, so it should cost as little CPU per request as it can.
import http from "node:http"

export interface HttpRequest {
  method?: string
  path: string
  headers?: Record<string, string>
  body?: string
  timeoutMs?: number
}

export interface HttpResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: Buffer
  /** Request sent to last byte received, in milliseconds. */
  ms: number
}

export function keepAliveAgent(maxSockets: number): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets })
}

/**
 * Sends one request. A GET on a kept-alive socket that the server closed just as it went out
 * (ECONNRESET or EPIPE before any answer: the server's idle timeout met the client's reuse)
 * is sent once more on a fresh socket, as browsers do; anything else fails.
 */
export async function send(origin: string, req: HttpRequest, agent?: http.Agent): Promise<HttpResponse> {
  try {
    return await sendOnce(origin, req, agent)
  } catch (error) {
    const { code, reusedSocket } = error as { code?: string; reusedSocket?: boolean }
    if (!reusedSocket || (req.method ?? "GET") !== "GET" || (code !== "ECONNRESET" && code !== "EPIPE")) throw error
    return sendOnce(origin, req, agent)
  }
}

function sendOnce(origin: string, req: HttpRequest, agent?: http.Agent): Promise<HttpResponse> {
  const url = new URL(req.path, origin)
  const headers: Record<string, string> = { ...req.headers }
  if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body))
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const r = http.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method: req.method ?? "GET",
        headers,
        agent: agent ?? false,
        timeout: req.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: performance.now() - started }),
        )
        res.on("error", reject)
      },
    )
    r.on("timeout", () => r.destroy(new Error(`timeout after ${req.timeoutMs ?? 30_000} ms: ${req.method ?? "GET"} ${req.path}`)))
    r.on("error", (error) => reject(Object.assign(error, { reusedSocket: r.reusedSocket })))
    if (req.body !== undefined) r.write(req.body)
    r.end()
  })
}

export function json(res: HttpResponse): unknown {
  return JSON.parse(res.body.toString("utf8")) as unknown
}

/** Fails with the status and the start of the body when the answer is not 2xx. */
export function expectOk(res: HttpResponse, what: string): HttpResponse {
  if (res.status < 200 || res.status >= 300) {
    throw new Error(`${what}: HTTP ${res.status}: ${res.body.toString("utf8").slice(0, 300)}`)
  }
  return res
}

/** name=value pairs from Set-Cookie headers. */
export function cookiesOf(res: HttpResponse): Map<string, string> {
  const jar = new Map<string, string>()
  for (const line of res.headers["set-cookie"] ?? []) {
    const pair = line.split(";", 1)[0] ?? ""
    const eq = pair.indexOf("=")
    if (eq > 0) jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
  }
  return jar
}

export function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
}

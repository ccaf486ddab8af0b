// Load shapes: closed-loop connections (throughput), and clients polling on a fixed period.
import type http from "node:http"
import { type HttpRequest, type HttpResponse, keepAliveAgent, send } from "./http"
import { max, percentile, sleep } from "./stats"

export interface LoadResult {
  requests: number
  errors: number
  /** Status → count; "network" for failures without an answer. */
  statuses: Record<string, number>
  seconds: number
  rps: number
  p50: number
  p99: number
  /** The slowest answer (ms). */
  max: number
  firstError?: string
}

function tally(statuses: Record<string, number>, key: string): void {
  statuses[key] = (statuses[key] ?? 0) + 1
}

/**
 * `connections` keep-alive connections, each sending its next request as soon as the last
 * answer arrived, until `durationMs` passed or `totalRequests` were sent. Anything but 2xx
 * is an error.
 */
export async function closedLoop(options: {
  origin: string
  connections: number
  durationMs?: number
  totalRequests?: number
  next: (i: number) => HttpRequest
}): Promise<LoadResult> {
  const agent: http.Agent = keepAliveAgent(options.connections)
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let issued = 0
  let firstError: string | undefined
  const started = performance.now()
  const deadline = options.durationMs === undefined ? Number.POSITIVE_INFINITY : started + options.durationMs
  const limit = options.totalRequests ?? Number.POSITIVE_INFINITY
  const worker = async () => {
    while (issued < limit && performance.now() < deadline) {
      const req = options.next(issued++)
      try {
        const res = await send(options.origin, req, agent)
        latencies.push(res.ms)
        tally(statuses, String(res.status))
        if (res.status < 200 || res.status >= 300) {
          errors++
          firstError ??= `${req.method ?? "GET"} ${req.path}: HTTP ${res.status} ${res.body.toString("utf8").slice(0, 200)}`
        }
      } catch (error) {
        errors++
        tally(statuses, "network")
        firstError ??= `${req.method ?? "GET"} ${req.path}: ${error instanceof Error ? error.message : String(error)}`
      }
    }
  }
  await Promise.all(Array.from({ length: options.connections }, worker))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return {
    requests: latencies.length + (statuses.network ?? 0),
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: max(latencies),
    ...(firstError ? { firstError } : {}),
  }
}

/**
 * `clients` pollers, each asking every `periodMs` (like a browser's refetch interval; a
 * poll that is late is sent at once, never twice), for `durationMs`. Starts are spread over
 * one period, as browsers opened at different moments would be.
 */
export async function pollers(options: {
  origin: string
  clients: number
  periodMs: number
  durationMs: number
  request: HttpRequest
  /** Each answer, as it comes (a section keeping its own details). */
  onResponse?: (res: HttpResponse) => void
}): Promise<LoadResult> {
  const agent = keepAliveAgent(options.clients)
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let firstError: string | undefined
  const started = performance.now()
  const end = started + options.durationMs
  const client = async (k: number) => {
    let due = started + (k * options.periodMs) / options.clients
    while (due < end) {
      const wait = due - performance.now()
      if (wait > 0) await sleep(wait)
      try {
        const res = await send(options.origin, options.request, agent)
        options.onResponse?.(res)
        latencies.push(res.ms)
        tally(statuses, String(res.status))
        if (res.status < 200 || res.status >= 300) {
          errors++
          firstError ??= `HTTP ${res.status} ${res.body.toString("utf8").slice(0, 200)}`
        }
      } catch (error) {
        errors++
        tally(statuses, "network")
        firstError ??= error instanceof Error ? error.message : String(error)
      }
      due = Math.max(due + options.periodMs, performance.now())
    }
  }
  await Promise.all(Array.from({ length: options.clients }, (_, k) => client(k)))
  const seconds = (performance.now() - started) / 1000
  agent.destroy()
  return {
    requests: latencies.length + (statuses.network ?? 0),
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: max(latencies),
    ...(firstError ? { firstError } : {}),
  }
}

import "server-only"
import { unitDraw } from "@/lib/sandbox/random"
import type { FaultOperation, FaultRule } from "@/lib/schemas/sandbox-tools"
import type { RuntimeSettings } from "@/lib/sandbox/settings"

/** How long a "hang" waits for the caller to give up before answering 504. */
export const HANG_CAP_MS = 120_000

type FaultOutcome =
  | { kind: "error"; status: number }
  | { kind: "rate_limit" }
  | { kind: "hang" }
  | { kind: "commit_then_fail"; status: number | "drop" }
  | { kind: "fail_processing" }
  | { kind: "drop" }

interface FaultDecision {
  latencyMs: number
  outcome: FaultOutcome | undefined
}

/**
 * Decides which fault rules fire for a request. The n-th request of an operation since
 * the settings last changed draws, for rule i, hash(seed, operation, i, n): the same
 * seed and the same sequence of requests give the same faults, so a run can be replayed.
 * All firing latency rules add up; the first other rule that fires decides the outcome.
 */
export class FaultInjector {
  private counters = new Map<FaultOperation, number>()
  private version = -1

  decide(operation: FaultOperation, settings: RuntimeSettings): FaultDecision {
    if (settings.version !== this.version) {
      this.counters.clear()
      this.version = settings.version
    }
    const n = this.counters.get(operation) ?? 0
    this.counters.set(operation, n + 1)
    const decision: FaultDecision = { latencyMs: 0, outcome: undefined }
    settings.rules.forEach((rule: FaultRule, index) => {
      if (rule.operation !== operation) return
      if (unitDraw("fault", settings.seed, operation, index, n) >= rule.rate) return
      if (rule.fault === "latency") {
        decision.latencyMs += rule.latency_ms ?? 0
        return
      }
      if (decision.outcome) return
      switch (rule.fault) {
        case "error":
          decision.outcome = { kind: "error", status: typeof rule.status === "number" ? rule.status : 503 }
          break
        case "rate_limit":
          decision.outcome = { kind: "rate_limit" }
          break
        case "hang":
          decision.outcome = { kind: "hang" }
          break
        case "commit_then_fail":
          decision.outcome = { kind: "commit_then_fail", status: rule.status ?? 503 }
          break
        case "fail_processing":
          decision.outcome = { kind: "fail_processing" }
          break
        case "drop":
          decision.outcome = { kind: "drop" }
          break
      }
    })
    return decision
  }
}

/** Waits `ms`, or until `signal` aborts (then rejects with its reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal))
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    // A pending fault never keeps the process alive on its own.
    timer.unref()
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal!))
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}

/** What fetch rejects with when its signal aborts: the signal's reason, or an AbortError. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  if (reason instanceof Error) return reason
  return new DOMException(typeof reason === "string" ? reason : "This operation was aborted", "AbortError")
}

// ------------------------------------------------------------- dropped connections

const dropped = new WeakSet<Response>()

/**
 * A response that stands for a dropped connection. Its body errors on the first read
 * with a TypeError, as fetch's does when a connection dies: in-process callers see
 * `response.json()` reject; Next.js, piping a route handler's body, destroys the socket
 * before writing any headers (next-route.test.ts checks it through the /sandbox route). The
 * Node server (lib/sandbox/node.ts) recognises it and destroys the socket itself.
 */
export function droppedConnection(): Response {
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(new TypeError("network connection lost (sandbox fault: drop)"))
    },
  })
  const response = new Response(body, { status: 200, headers: { "content-type": "application/json" } })
  dropped.add(response)
  return response
}

export function isDroppedConnection(response: Response): boolean {
  return dropped.has(response)
}

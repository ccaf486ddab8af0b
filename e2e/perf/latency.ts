// 1, 2. Proxy overhead: one request at a time, the console (sandbox mode, and Postgres mode)
// interleaved with the references - a thin Next.js proxy in front of the standalone sandbox
// (the goals) and the standalone sandbox called directly (reported) - the order rotating,
// at the pace the service's rate limit allows. Writes create an execution, reads fetch one
// of those; each ratio is the median of the rounds' ratios.
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { z } from "zod"
import { type Bench, logLine } from "./context"
import { quotesSchema, recordSchema } from "./shapes"
import { type HttpRequest, expectOk, json, keepAliveAgent, send } from "./http"
import { BASE_AMOUNT, EXECUTIONS_PACE_MS } from "./options"
import { loadAverage } from "./processes"
import type { ConsoleUnderTest, DirectSandbox } from "./targets"
import { median, percentile, round, sleep } from "./stats"

/** One side of the comparison: how to reach it, how to ask for a quote, where to create. */
interface Target {
  name: string
  /** The sandbox that answers in the end: requests to one sandbox are paced together. */
  service: string
  origin: string
  headers: Record<string, string>
  quotesPath: string
  executionsPath: string
}

class QuoteSource {
  private id = ""
  private fetchedAt = 0
  constructor(private readonly target: Target) {}
  /** A BUY quote, refreshed every 2 s so the market never moves far from it (no Rejected). */
  async current(): Promise<string> {
    if (Date.now() - this.fetchedAt > 2000) {
      const res = expectOk(await send(this.target.origin, { path: this.target.quotesPath, headers: this.target.headers }), `${this.target.name} quotes`)
      const quote = quotesSchema.parse(json(res)).items.find((q) => q.side === "BUY")
      if (!quote) throw new Error(`${this.target.name}: no BUY quote for BTCUSD`)
      this.id = quote.id
      this.fetchedAt = Date.now()
    }
    return this.id
  }
}

interface LatencySample {
  writes: number[]
  reads: number[]
  errors: string[]
  ids: string[]
}

const emptySample = (): LatencySample => ({ writes: [], reads: [], errors: [], ids: [] })

function createRequest(target: Target, quoteId: string): HttpRequest {
  return {
    method: "POST",
    path: target.executionsPath,
    headers: { ...target.headers, "content-type": "application/json" },
    body: JSON.stringify({ quote_id: quoteId, base_amount: BASE_AMOUNT, ref_id: `bench-${randomUUID()}` }),
  }
}

/**
 * Write or read latency, the targets interleaved request by request (the order rotating,
 * so each goes first as often), so all see the same machine load. Requests that end at
 * the same sandbox are paced together, within the service's rate limit.
 */
async function latencyRound(targets: readonly Target[], pairs: number, kind: "write" | "read", samples: Map<string, LatencySample>) {
  const agents = new Map(targets.map((t) => [t.name, keepAliveAgent(1)]))
  const quotes = new Map(targets.map((t) => [t.name, new QuoteSource(t)]))
  const lastStart = new Map<string, number>()
  for (let i = 0; i < pairs; i++) {
    const order = targets.map((_, k) => targets[(i + k) % targets.length]!)
    for (const target of order) {
      const sample = samples.get(target.name)
      if (!sample) throw new Error("no sample")
      let req: HttpRequest
      if (kind === "write") {
        req = createRequest(target, await quotes.get(target.name)!.current())
      } else {
        const id = sample.ids[i % sample.ids.length]
        if (!id) throw new Error(`${target.name}: no execution to read`)
        req = { path: `${target.executionsPath}/${id}`, headers: target.headers }
      }
      const wait = (lastStart.get(target.service) ?? 0) + EXECUTIONS_PACE_MS - performance.now()
      if (wait > 0) await sleep(wait)
      lastStart.set(target.service, performance.now())
      const res = await send(target.origin, req, agents.get(target.name))
      if (res.status >= 200 && res.status < 300) {
        ;(kind === "write" ? sample.writes : sample.reads).push(res.ms)
        if (kind === "write") sample.ids.push(recordSchema.parse(json(res)).id)
      } else {
        sample.errors.push(`${kind} ${target.name} HTTP ${res.status}: ${res.body.toString("utf8").slice(0, 160)}`)
      }
    }
  }
  for (const agent of agents.values()) agent.destroy()
}

const consoleTarget = (app: ConsoleUnderTest): Target => ({
  name: app.label === "sandbox mode" ? "console" : app.label === "Postgres mode" ? "console on Postgres" : `console, ${app.label}`,
  service: app.origin,
  origin: app.origin,
  headers: app.headers,
  quotesPath: "/api/quotes?markets=BTCUSD",
  executionsPath: `/api/profiles/${app.profile}/quote-executions`,
})

type Percentiles = { p50: number; p99: number; n: number }

/** Goals against the thin proxy, p50: a write pays for the write-ahead intent that makes it exactly-once. */
const GOALS = { write: 1.5, read: 1.15 } as const

/**
 * The console (sandbox mode, and Postgres mode when a server is given), the thin proxy in
 * the minimal Next.js app, and the standalone sandbox called directly, interleaved.
 */
export async function measureLatency(
  bench: Bench,
  consoles: readonly ConsoleUnderTest[],
  sandbox: DirectSandbox,
  proxyOrigin: string,
): Promise<void> {
  const { cfg, rows, results, failures } = bench
  const direct: Target = {
    name: "direct",
    service: sandbox.origin,
    origin: sandbox.origin,
    headers: sandbox.headers,
    quotesPath: "/sandbox/v2/quotes?markets=BTCUSD",
    executionsPath: `/sandbox/v2/profiles/${sandbox.profile}/quote-executions`,
  }
  const proxy: Target = {
    name: "thin proxy",
    service: sandbox.origin,
    origin: proxyOrigin,
    headers: {},
    quotesPath: "/api/proxy/quotes?markets=BTCUSD",
    executionsPath: `/api/proxy/profiles/${sandbox.profile}/quote-executions`,
  }
  const targets = [...consoles.map(consoleTarget), proxy, direct]
  const rounds: { kind: "write" | "read"; by: Record<string, Percentiles>; errors: string[]; load: number }[] = []
  logLine(`latency: ${cfg.latencyRounds} rounds of ${cfg.latencyPairs} creates and ${cfg.latencyPairs} reads each on ${targets.map((t) => t.name).join(", ")}; one at a time, ${1000 / EXECUTIONS_PACE_MS}/s per sandbox`)
  const warm = new Map(targets.map((t) => [t.name, emptySample()]))
  await latencyRound(targets, cfg.warmupPairs, "write", warm)
  await latencyRound(targets, cfg.warmupPairs, "read", warm)
  for (const app of consoles) app.apiRequests += cfg.warmupPairs * 2
  for (let r = 0; r < cfg.latencyRounds; r++) {
    const samples = new Map(targets.map((t) => [t.name, emptySample()]))
    await latencyRound(targets, cfg.latencyPairs, "write", samples)
    await latencyRound(targets, cfg.latencyPairs, "read", samples)
    for (const app of consoles) app.apiRequests += cfg.latencyPairs * 2
    const load = loadAverage()[0]
    const errors = [...samples.values()].flatMap((x) => x.errors)
    for (const kind of ["write", "read"] as const) {
      const by: Record<string, Percentiles> = {}
      for (const [name, sample] of samples) {
        const values = kind === "write" ? sample.writes : sample.reads
        by[name] = { p50: percentile(values, 50), p99: percentile(values, 99), n: values.length }
      }
      rounds.push({ kind, by, errors: errors.filter((e) => e.startsWith(kind)), load })
    }
    logLine(
      `  round ${r + 1}: ` +
        rounds
          .slice(-2)
          .map((x) => `${x.kind} ` + Object.entries(x.by).map(([name, v]) => `${name} ${round(v.p50)}/${round(v.p99)} ms`).join(", "))
          .join("; ") +
        (errors.length > 0 ? `; errors: ${errors.slice(0, 2).join(" | ")}` : ""),
    )
  }
  results.latency = { paceMs: EXECUTIONS_PACE_MS, pairs: cfg.latencyPairs, rounds }
  for (const kind of ["write", "read"] as const) {
    const rs = rounds.filter((x) => x.kind === kind)
    const errors = rs.reduce((a, x) => a + x.errors.length, 0)
    if (errors > 0) failures.push(`${kind} latency: ${errors} errors (${rs.flatMap((x) => x.errors)[0]})`)
    const group = kind === "write" ? "1. proxy overhead, write (POST execution)" : "2. proxy overhead, read (GET execution)"
    for (const app of consoles) {
      const name = consoleTarget(app).name
      for (const [reference, label] of [
        [proxy.name, "against the thin proxy"],
        [direct.name, "against the sandbox directly"],
      ] as const) {
        for (const p of ["p50", "p99"] as const) {
          const cv = median(rs.map((x) => x.by[name]?.[p] ?? Number.NaN))
          const rv = median(rs.map((x) => x.by[reference]?.[p] ?? Number.NaN))
          const ratio = median(rs.map((x) => (x.by[name]?.[p] ?? Number.NaN) / (x.by[reference]?.[p] ?? Number.NaN)))
          const goal = reference === proxy.name && p === "p50" ? GOALS[kind] : null
          rows.push({
            group,
            what: `${app.label}, ${p} ${label}`,
            console: `${round(cv)} ms`,
            baseline: `${round(rv)} ms`,
            value: `× ${round(ratio, 2)}`,
            goal: goal === null ? "report" : `≤ ${goal}`,
            ok: goal === null ? Number.isFinite(ratio) : ratio <= goal,
          })
        }
      }
    }
  }
  const traced = consoles.find((app) => app.label.endsWith("traced"))
  const plain = consoles.find((app) => app.label === "sandbox mode")
  if (traced && plain) tracedRows(bench, rounds, consoleTarget(traced).name, consoleTarget(plain).name)
  const main = consoles.find((app) => app.label === "sandbox mode")
  if (bench.args.explain && main) explainLatency(bench, main.logFile)
}

/**
 * --traced: the same sandbox-mode console with and without an OTLP exporter, interleaved
 * request by request in the same rounds; each ratio is the median of the rounds' ratios.
 */
function tracedRows(bench: Bench, rounds: readonly { kind: "write" | "read"; by: Record<string, Percentiles> }[], traced: string, plain: string): void {
  for (const kind of ["write", "read"] as const) {
    const rs = rounds.filter((x) => x.kind === kind)
    for (const p of ["p50", "p99"] as const) {
      const tv = median(rs.map((x) => x.by[traced]?.[p] ?? Number.NaN))
      const pv = median(rs.map((x) => x.by[plain]?.[p] ?? Number.NaN))
      const ratio = median(rs.map((x) => (x.by[traced]?.[p] ?? Number.NaN) / (x.by[plain]?.[p] ?? Number.NaN)))
      logLine(`  traced / untraced, ${kind} ${p}: ${round(tv)} / ${round(pv)} ms, × ${round(ratio, 2)}`)
      bench.rows.push({
        group: kind === "write" ? "1. proxy overhead, write (POST execution)" : "2. proxy overhead, read (GET execution)",
        what: `sandbox mode, ${p}: traced (OTLP/HTTP to a local receiver) against untraced`,
        console: `${round(tv)} ms`,
        baseline: `${round(pv)} ms`,
        value: `× ${round(ratio, 2)}`,
        goal: "report",
        ok: Number.isFinite(ratio),
      })
    }
  }
}

/** --explain: the service call inside the console, from its debug log, beside the latency rows. */
function explainLatency(bench: Bench, logFile: string): void {
  const calls = upstreamCalls(logFile)
  bench.results.explain = calls
  for (const [op, kind] of [["createQuoteExecution", "write"], ["getQuoteExecution", "read"]] as const) {
    const ms = calls.ms[op] ?? []
    logLine(`  inside the console, ${kind}: the service call took p50 ${round(percentile(ms, 50))} ms, p99 ${round(percentile(ms, 99))} ms (${ms.length} calls)`)
    bench.rows.push({
      group: kind === "write" ? "1. proxy overhead, write (POST execution)" : "2. proxy overhead, read (GET execution)",
      what: "of which the service call inside the console (p50)",
      console: `${round(percentile(ms, 50))} ms`,
      baseline: "",
      value: "",
      goal: "report",
      ok: ms.length > 0,
    })
  }
  logLine(`  rate-limiter waits in the console: ${calls.rateLimitWaits}`)
}

/** The console's own timing of its service calls, from its debug log (upstream.call lines). */
function upstreamCalls(logFile: string): { ms: Record<string, number[]>; rateLimitWaits: number } {
  const ms: Record<string, number[]> = {}
  let rateLimitWaits = 0
  const line = z.object({ level: z.string(), event: z.string(), op: z.string().optional(), ms: z.number().optional() })
  for (const text of readFileSync(logFile, "utf8").split("\n")) {
    if (!text.startsWith("{")) continue
    let parsed: z.infer<typeof line>
    try {
      parsed = line.parse(JSON.parse(text))
    } catch {
      continue
    }
    if (parsed.level !== "debug") continue
    if (parsed.event === "rate_limit_wait") rateLimitWaits++
    if (parsed.event === "request" && parsed.op && parsed.ms !== undefined) (ms[parsed.op] ??= []).push(parsed.ms)
  }
  return { ms, rateLimitWaits }
}

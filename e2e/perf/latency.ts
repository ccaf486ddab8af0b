// 1, 2. Proxy overhead: one request at a time, the console and the sandbox called directly
// interleaved pair by pair (alternating which goes first, so both see the same machine),
// at the pace the service's rate limit allows. Writes create an execution, reads fetch one
// of those; the ratio is the median of the rounds' ratios.
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { z } from "zod"
import { type Bench, logLine, quotesSchema, recordSchema } from "./context"
import { type HttpRequest, expectOk, json, keepAliveAgent, send } from "./http"
import { BASE_AMOUNT, EXECUTIONS_PACE_MS } from "./options"
import { loadAverage } from "./processes"
import type { ConsoleUnderTest, DirectSandbox } from "./targets"
import { median, percentile, round, sleep } from "./stats"

/** One side of the comparison: how to reach it, how to ask for a quote, where to create. */
interface Target {
  name: "console" | "direct"
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
 * Write then read latency, console and direct interleaved pair by pair (alternating which
 * goes first), so both see the same machine load. Returns per-target samples.
 */
async function latencyRound(targets: [Target, Target], pairs: number, kind: "write" | "read", samples: Map<string, LatencySample>) {
  const agents = new Map(targets.map((t) => [t.name, keepAliveAgent(1)]))
  const quotes = new Map(targets.map((t) => [t.name, new QuoteSource(t)]))
  let lastStart = 0
  for (let i = 0; i < pairs; i++) {
    const order = i % 2 === 0 ? targets : ([targets[1], targets[0]] as const)
    for (const target of order) {
      const sample = samples.get(target.name)
      if (!sample) throw new Error("no sample")
      const wait = lastStart + EXECUTIONS_PACE_MS - performance.now()
      if (wait > 0) await sleep(wait)
      let req: HttpRequest
      if (kind === "write") {
        req = createRequest(target, await quotes.get(target.name)!.current())
      } else {
        const id = sample.ids[i % sample.ids.length]
        if (!id) throw new Error(`${target.name}: no execution to read`)
        req = { path: `${target.executionsPath}/${id}`, headers: target.headers }
      }
      lastStart = performance.now()
      const res = await send(target.origin, req, agents.get(target.name))
      if (res.status >= 200 && res.status < 300) {
        ;(kind === "write" ? sample.writes : sample.reads).push(res.ms)
        if (kind === "write") sample.ids.push(recordSchema.parse(json(res)).id)
      } else {
        sample.errors.push(`${kind} HTTP ${res.status}: ${res.body.toString("utf8").slice(0, 160)}`)
      }
    }
  }
  for (const agent of agents.values()) agent.destroy()
}

export async function measureLatency(bench: Bench, app: ConsoleUnderTest, sandbox: DirectSandbox): Promise<void> {
  const { cfg, rows, results, failures } = bench
  const targets: [Target, Target] = [
    {
      name: "console",
      origin: app.origin,
      headers: app.headers,
      quotesPath: "/api/quotes?markets=BTCUSD",
      executionsPath: `/api/profiles/${app.profile}/quote-executions`,
    },
    {
      name: "direct",
      origin: sandbox.origin,
      headers: sandbox.headers,
      quotesPath: "/sandbox/v2/quotes?markets=BTCUSD",
      executionsPath: `/sandbox/v2/profiles/${sandbox.profile}/quote-executions`,
    },
  ]
  const rounds: { kind: string; console: { p50: number; p99: number; n: number }; direct: { p50: number; p99: number; n: number }; errors: string[]; load: number }[] = []
  logLine(`latency: ${cfg.latencyRounds} rounds of ${cfg.latencyPairs} creates and ${cfg.latencyPairs} reads each way, one at a time, ${1000 / EXECUTIONS_PACE_MS}/s`)
  const warm = new Map(targets.map((t) => [t.name, emptySample()]))
  await latencyRound(targets, cfg.warmupPairs, "write", warm)
  await latencyRound(targets, cfg.warmupPairs, "read", warm)
  app.apiRequests += cfg.warmupPairs * 2
  for (let r = 0; r < cfg.latencyRounds; r++) {
    const samples = new Map(targets.map((t) => [t.name, emptySample()]))
    await latencyRound(targets, cfg.latencyPairs, "write", samples)
    await latencyRound(targets, cfg.latencyPairs, "read", samples)
    app.apiRequests += cfg.latencyPairs * 2
    const c = samples.get("console")!
    const d = samples.get("direct")!
    const load = loadAverage()[0]
    for (const kind of ["write", "read"] as const) {
      const cv = kind === "write" ? c.writes : c.reads
      const dv = kind === "write" ? d.writes : d.reads
      rounds.push({
        kind,
        console: { p50: percentile(cv, 50), p99: percentile(cv, 99), n: cv.length },
        direct: { p50: percentile(dv, 50), p99: percentile(dv, 99), n: dv.length },
        errors: [...c.errors, ...d.errors].filter((e) => e.startsWith(kind)),
        load,
      })
    }
    const last = rounds.slice(-2)
    logLine(
      `  round ${r + 1}: ` +
        last.map((x) => `${x.kind} console ${round(x.console.p50)}/${round(x.console.p99)} ms, direct ${round(x.direct.p50)}/${round(x.direct.p99)} ms`).join("; ") +
        (c.errors.length + d.errors.length > 0 ? `; errors: ${[...c.errors, ...d.errors].slice(0, 2).join(" | ")}` : ""),
    )
  }
  results.latency = { paceMs: EXECUTIONS_PACE_MS, pairs: cfg.latencyPairs, rounds }
  for (const kind of ["write", "read"] as const) {
    const rs = rounds.filter((x) => x.kind === kind)
    const errors = rs.reduce((a, x) => a + x.errors.length, 0)
    if (errors > 0) failures.push(`${kind} latency: ${errors} errors (${rs.flatMap((x) => x.errors)[0]})`)
    const goal = kind === "write" ? 1.5 : 1.3
    for (const p of ["p50", "p99"] as const) {
      const cv = median(rs.map((x) => x.console[p]))
      const dv = median(rs.map((x) => x.direct[p]))
      const ratios = rs.map((x) => x.console[p] / x.direct[p])
      rows.push({
        group: kind === "write" ? "1. proxy overhead, write (POST execution)" : "2. proxy overhead, read (GET execution)",
        what: `${p}`,
        console: `${round(cv)} ms`,
        baseline: `${round(dv)} ms`,
        value: `× ${round(median(ratios), 2)}`,
        goal: `≤ ${goal}`,
        ok: median(ratios) <= goal,
      })
    }
  }
  if (bench.args.explain) explainLatency(bench, app.logFile)
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

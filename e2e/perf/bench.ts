// npm run bench [-- --smoke] [--build|--no-build] [--dist DIR] [--only a,b] [--rounds N] [--cpu-prof] [--explain]
//   --rounds N  N rounds of each measurement instead of the default (5 latency, 3 others)
//   --cpu-prof  the sandbox-mode console writes a V8 CPU profile to test-results/bench-profiles/
//   --explain   the sandbox-mode console logs at debug level, and the latency rows are split
//               into the service call (the in-process sandbox, as the console's client timed
//               it) and the console's own share; the logging itself costs a little
//
// What the console costs, measured against what it stands in front of, in one run:
// builds the console (production, NEXT_DIST_DIR=.next-bench), starts it in sandbox mode on
// a fresh data folder, starts the sandbox alone (npm run sandbox) as the direct baseline,
// measures, prints a table and writes bench-results.json. --smoke is a tiny run of every
// measurement (part of npm test, so the benchmark cannot rot); its numbers mean nothing.
import { execFileSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { cpus, totalmem } from "node:os"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import path from "node:path"
import bcrypt from "bcryptjs"
import { z } from "zod"
import { UPSTREAM_SCOPES } from "../../lib/schemas/scopes"
import { type CountingProxy, isQuotesCall, isTokenRequest, startCountingProxy } from "./counting-proxy"
import { type HttpRequest, expectOk, json, keepAliveAgent, send } from "./http"
import { type LoadResult, closedLoop, pollers } from "./load"
import { Browsing, type PageSpeed } from "./page-speed"
import { type BaselineBuild, type PageWeight, buildBaseline, measureBaseline, pageWeight } from "./page-weight"
import { cleanupAll, freePort, groupMemory, loadAverage, onCleanup, sampleMemory, tempDir } from "./processes"
import { type Row, printTable, tableMarkdown } from "./report"
import { buildConsole, freshBuild, repoRoot, sandboxToken, signIn, startConsole, startSandbox } from "./servers"
import { max, median, percentile, round, sleep } from "./stats"
import { SCALE_FULL, SCALE_SMOKE, scaleDatabaseServer, scaleSection } from "./scale"

// ---------------------------------------------------------------- options

const PHASES = ["latency", "throughput", "pages", "tokens", "baseline", "scale"] as const
type Phase = (typeof PHASES)[number]

function parseArgs(argv: string[]) {
  // scale needs a Postgres server: it runs by default only when one is configured.
  const only = new Set<Phase>(PHASES.filter((p) => p !== "scale" || scaleDatabaseServer()))
  const args = { smoke: false, build: "auto" as "auto" | "always" | "never", dist: "", only, cpuProf: false, explain: false, rounds: 0 }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--smoke") args.smoke = true
    else if (arg === "--no-build") args.build = "never"
    else if (arg === "--build") args.build = "always"
    else if (arg === "--cpu-prof") args.cpuProf = true
    else if (arg === "--explain") args.explain = true
    else if (arg === "--rounds") {
      args.rounds = Number(argv[++i])
      if (!Number.isInteger(args.rounds) || args.rounds < 1) throw new Error("--rounds takes a whole number ≥ 1")
    }
    else if (arg === "--dist") args.dist = argv[++i] ?? ""
    else if (arg === "--only") {
      const names = (argv[++i] ?? "").split(",").filter(Boolean)
      for (const n of names) if (!PHASES.includes(n as Phase)) throw new Error(`--only: unknown phase ${n} (${PHASES.join(", ")})`)
      args.only = new Set(names as Phase[])
    } else throw new Error(`unknown option ${arg}\nusage: npm run bench -- [--smoke] [--build|--no-build] [--dist DIR] [--only ${PHASES.join(",")}] [--rounds N] [--cpu-prof] [--explain]`)
  }
  return args
}

const FULL = {
  latencyRounds: 5,
  latencyPairs: 200,
  warmupPairs: 30,
  throughputRounds: 3,
  throughputSeconds: 10,
  tokenRounds: 3,
  tokenCalls: 1000,
  tokenConcurrency: 50,
  pollClients: 50,
  pollPeriodMs: 250,
  pollSeconds: 20,
  speedRounds: 5,
  settleMs: 2000,
}
const SMOKE: typeof FULL = {
  latencyRounds: 1,
  latencyPairs: 10,
  warmupPairs: 3,
  throughputRounds: 1,
  throughputSeconds: 2,
  tokenRounds: 1,
  tokenCalls: 100,
  tokenConcurrency: 50,
  pollClients: 10,
  pollPeriodMs: 250,
  pollSeconds: 3,
  speedRounds: 1,
  settleMs: 500,
}

/**
 * Requests to /profiles/{id}/quote-executions are sent one at a time, 8 per second: the
 * service allows 10 per second and the console enforces that locally (it queues anything
 * faster), so a faster pace would measure the limiter's queue, not the console.
 */
const EXECUTIONS_PACE_MS = 125
/** The service's other limit (50/s), which the console also enforces: upstream-bound GETs are measured within it. */
const PROFILE = "Treasury"
const TRADER = { email: "trader@example.com", password: "demo-password" }
const PAGES = ["/sign-in", "/trade", "/executions", "/conversions/new", "/conversions"] as const
const BASE_AMOUNT = "0.0001"

// ---------------------------------------------------------------- service shapes

const profilesSchema = z.object({ items: z.array(z.object({ id: z.string(), nickname: z.string() })) })
const quotesSchema = z.object({ items: z.array(z.object({ id: z.string(), side: z.string(), expires_at: z.string() })) })
const recordSchema = z.object({ id: z.string() })

function logLine(text: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)} load ${loadAverage()[0].toFixed(2)}] ${text}\n`)
}

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

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const preset = args.smoke ? SMOKE : FULL
  const cfg = args.rounds
    ? { ...preset, latencyRounds: args.rounds, throughputRounds: args.rounds, tokenRounds: args.rounds, speedRounds: args.rounds }
    : preset
  const startedAt = new Date()
  const loadSamples: number[] = []
  const loadTimer = setInterval(() => loadSamples.push(loadAverage()[0]), 5000)
  onCleanup(() => clearInterval(loadTimer))
  const work = tempDir("console-bench-")
  const logDir = path.join(work, "logs")
  mkdirSync(logDir, { recursive: true })
  const loadAtStart = loadAverage()
  logLine(`${args.smoke ? "smoke run" : "full run"}; machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`)
  if (!args.smoke && loadAtStart[0] > 1.5) {
    logLine(`note: load average ${loadAtStart.join(" ")} is high; numbers will be noisy (quiet machine: load < 1.5)`)
  }

  // -------------------------------------------------------------- build
  let distDir = args.dist || process.env.BENCH_DIST_DIR || ".next-bench"
  const needsConsole = ["latency", "throughput", "pages", "tokens", "scale"].some((p) => args.only.has(p as Phase))
  let baselineBuild: Promise<BaselineBuild> | null = null
  if (args.only.has("baseline") && args.smoke) baselineBuild = buildBaseline(logDir) // alongside, in a smoke run
  if (needsConsole) {
    if (args.build === "never") {
      if (!freshBuild(distDir)) logLine(`--no-build: using ${distDir} as it is (older than the sources, or missing)`)
    } else if (args.build === "auto" && args.smoke && !args.dist) {
      // npm test builds for the e2e suite just before: reuse that build when it is current.
      const candidates = [process.env.NEXT_DIST_DIR || ".next", distDir]
      const fresh = candidates.find((d) => freshBuild(d))
      if (fresh) {
        distDir = fresh
        logLine(`using the current build in ${distDir}`)
      } else {
        logLine(`building into ${distDir} (next build)`)
        await buildConsole(distDir, path.join(logDir, "build.log"))
      }
    } else {
      logLine(`building into ${distDir} (next build; a few minutes)`)
      const t = performance.now()
      await buildConsole(distDir, path.join(logDir, "build.log"))
      logLine(`built in ${Math.round((performance.now() - t) / 1000)} s`)
    }
  }
  if (args.only.has("baseline") && !baselineBuild) {
    logLine("building the minimal Next.js baseline app")
    baselineBuild = buildBaseline(logDir)
    await baselineBuild
  }

  const results: Record<string, unknown> = {}
  const rows: Row[] = []
  const failures: string[] = []

  // The sandbox's OAuth client, known to the bench (the same pair for both sandboxes).
  const clientId = "bench-client"
  const clientSecret = randomBytes(24).toString("base64url")

  // -------------------------------------------------------------- the direct baseline: npm run sandbox
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | null = null
  let directProfile = ""
  let directHeaders: Record<string, string> = {}
  if (args.only.has("latency") || args.only.has("tokens")) {
    const port = await freePort(4500, 4599)
    logLine(`starting the standalone sandbox (npm run sandbox) on ${port}`)
    sandbox = await startSandbox({ port, dataDir: tempDir("console-bench-sandbox-"), logDir, clientId, clientSecret })
    const token = await sandboxToken(sandbox.origin, clientId, clientSecret, UPSTREAM_SCOPES)
    directHeaders = { authorization: `Bearer ${token}` }
    const profiles = profilesSchema.parse(json(expectOk(await send(sandbox.origin, { path: "/sandbox/v2/profiles", headers: directHeaders }), "sandbox profiles")))
    directProfile = profiles.items.find((p) => p.nickname === PROFILE)?.id ?? ""
    if (!directProfile) throw new Error(`the sandbox has no ${PROFILE} profile`)
  }

  // -------------------------------------------------------------- the console in sandbox mode
  if (args.only.has("latency") || args.only.has("throughput") || args.only.has("pages")) {
    const port = await freePort(3500, 3599)
    const consoleData = tempDir("console-bench-data-")
    const profileDir = args.cpuProf ? path.join(repoRoot, "test-results", "bench-profiles") : undefined
    logLine(`starting the console (sandbox mode, ${distDir}) on ${port}`)
    const app = await startConsole({
      name: "console",
      distDir,
      port,
      dataDir: consoleData,
      logDir,
      env: { SANDBOX_CLIENT_ID: clientId, SANDBOX_CLIENT_SECRET: clientSecret, ...(args.explain ? { LOG_LEVEL: "debug" } : {}) },
      cpuProfileDir: profileDir,
    })
    const cookie = await signIn(app.origin, TRADER.email, TRADER.password)
    const consoleHeaders = { cookie, origin: app.origin }
    const profiles = profilesSchema.parse(json(expectOk(await send(app.origin, { path: "/api/profiles", headers: consoleHeaders }), "console profiles")))
    const consoleProfile = profiles.items.find((p) => p.nickname === PROFILE)?.id ?? ""
    if (!consoleProfile) throw new Error(`the console's sandbox has no ${PROFILE} profile`)
    let apiRequests = 0

    // ------------------------------------------------------------ 1, 2: proxy overhead
    if (args.only.has("latency")) {
      if (!sandbox) throw new Error("no sandbox")
      const targets: [Target, Target] = [
        {
          name: "console",
          origin: app.origin,
          headers: consoleHeaders,
          quotesPath: "/api/quotes?markets=BTCUSD",
          executionsPath: `/api/profiles/${consoleProfile}/quote-executions`,
        },
        {
          name: "direct",
          origin: sandbox.origin,
          headers: directHeaders,
          quotesPath: "/sandbox/v2/quotes?markets=BTCUSD",
          executionsPath: `/sandbox/v2/profiles/${directProfile}/quote-executions`,
        },
      ]
      const rounds: { kind: string; console: { p50: number; p99: number; n: number }; direct: { p50: number; p99: number; n: number }; errors: string[]; load: number }[] = []
      logLine(`latency: ${cfg.latencyRounds} rounds of ${cfg.latencyPairs} creates and ${cfg.latencyPairs} reads each way, one at a time, ${1000 / EXECUTIONS_PACE_MS}/s`)
      const warm = new Map(targets.map((t) => [t.name, emptySample()]))
      await latencyRound(targets, cfg.warmupPairs, "write", warm)
      await latencyRound(targets, cfg.warmupPairs, "read", warm)
      apiRequests += cfg.warmupPairs * 2
      for (let r = 0; r < cfg.latencyRounds; r++) {
        const samples = new Map(targets.map((t) => [t.name, emptySample()]))
        await latencyRound(targets, cfg.latencyPairs, "write", samples)
        await latencyRound(targets, cfg.latencyPairs, "read", samples)
        apiRequests += cfg.latencyPairs * 2
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
      if (args.explain) {
        const calls = upstreamCalls(app.server.logFile)
        results.explain = calls
        for (const [op, kind] of [["createQuoteExecution", "write"], ["getQuoteExecution", "read"]] as const) {
          const ms = calls.ms[op] ?? []
          logLine(`  inside the console, ${kind}: the service call took p50 ${round(percentile(ms, 50))} ms, p99 ${round(percentile(ms, 99))} ms (${ms.length} calls)`)
          rows.push({
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
    }

    // ------------------------------------------------------------ 3, 8: throughput and memory
    if (args.only.has("throughput")) {
      const routes = ["/api/quotes?markets=BTCUSD", "/api/me"]
      const mix = (i: number): HttpRequest => ({ path: routes[i % routes.length] ?? "/api/me", headers: consoleHeaders })
      const perLevel = new Map<number, LoadResult[]>()
      const memory = sampleMemory(app.server.pid)
      logLine(`throughput: ${cfg.throughputRounds} rounds × ${cfg.throughputSeconds} s at 10 and 50 connections (${routes.join(", ")})`)
      // Warm-up: the server's JIT needs a few thousand requests before it settles.
      await closedLoop({ origin: app.origin, connections: 10, durationMs: cfg.throughputSeconds * 1000, next: mix })
      for (let r = 0; r < cfg.throughputRounds; r++) {
        for (const connections of [10, 50]) {
          const result = await closedLoop({ origin: app.origin, connections, durationMs: cfg.throughputSeconds * 1000, next: mix })
          apiRequests += result.requests
          perLevel.set(connections, [...(perLevel.get(connections) ?? []), result])
          logLine(`  round ${r + 1}, ${connections} connections: ${round(result.rps)} req/s, ${result.errors} errors, p50 ${round(result.p50)} ms, p99 ${round(result.p99)} ms`)
        }
      }
      // Upstream-bound: every request is a call to the service, within its 50/s limit.
      const upstreamBound = await closedLoop({
        origin: app.origin,
        connections: 10,
        durationMs: Math.max(2, cfg.throughputSeconds / 2) * 1000,
        next: () => ({ path: `/api/profiles/${consoleProfile}/balances`, headers: consoleHeaders }),
      })
      apiRequests += upstreamBound.requests
      logLine(`  upstream-bound GET balances, 10 connections: ${round(upstreamBound.rps)} req/s, ${upstreamBound.errors} errors`)
      const mem = memory.stop()
      const hwm = groupMemory(app.server.pid)
      results.throughput = { routes, levels: Object.fromEntries(perLevel), upstreamBound }
      results.memory = { peakSampledMiB: mem.peakMiB, samples: mem.samples, processes: hwm.processes }
      for (const [connections, list] of perLevel) {
        const errors = list.reduce((a, x) => a + x.errors, 0)
        if (errors > 0) failures.push(`throughput at ${connections}: ${errors} errors (${list.find((x) => x.firstError)?.firstError})`)
        rows.push({
          group: "3. throughput, console GET routes (/api/quotes, /api/me)",
          what: `${connections} connections`,
          console: `${round(median(list.map((x) => x.rps)), 0)} req/s, p99 ${round(median(list.map((x) => x.p99)))} ms`,
          baseline: "",
          value: `${errors} errors`,
          goal: connections === 10 ? "≥ 400 req/s, 0 errors" : "0 errors",
          ok: errors === 0 && (connections !== 10 || median(list.map((x) => x.rps)) >= 400),
        })
      }
      rows.push({
        group: "3. throughput, console GET routes (/api/quotes, /api/me)",
        what: "GET balances (calls the service), 10 connections",
        console: `${round(upstreamBound.rps, 0)} req/s, p99 ${round(upstreamBound.p99)} ms`,
        baseline: "",
        value: `${upstreamBound.errors} errors`,
        goal: "≤ 50 req/s (service limit)",
        ok: upstreamBound.errors === 0 && upstreamBound.rps <= 52,
      })
      const pglite = pgliteAloneMiB()
      results.memory = { ...(results.memory as object), pgliteAloneMiB: pglite }
      rows.push({
        group: "8. memory",
        what: "console peak RSS during the throughput run",
        console: `${round(mem.peakMiB, 0)} MiB`,
        baseline: "",
        value: `lifetime peak ${round(hwm.peakMiB, 0)} MiB`,
        goal: "report",
        ok: mem.samples > 0,
      })
      rows.push({
        group: "8. memory",
        what: "of which the embedded database: a Node process after PGlite.create(), minus before",
        console: `${round(pglite, 0)} MiB`,
        baseline: "",
        value: "sandbox mode only (DATABASE_URL: none)",
        goal: "report",
        ok: pglite > 0,
      })
    }

    // ------------------------------------------------------------ 6, 7: page weight and speed
    if (args.only.has("pages")) {
      logLine("page weight: first-load JS (gzip -9) of each page's <script src>")
      const weights: PageWeight[] = []
      for (const page of PAGES) {
        const weight = await pageWeight(app.origin, page, page === "/sign-in" ? undefined : cookie)
        weights.push(weight)
        logLine(`  ${page}: ${weight.missing ? "missing" : `${round(weight.gzipBytes / 1024)} kB gzip (${weight.scripts.length} scripts)`}`)
      }
      results.pageWeight = weights
      for (const w of weights) {
        rows.push({
          group: "6. page weight, first-load JS (gzip)",
          what: w.path,
          console: w.missing ? "missing" : `${round(w.gzipBytes / 1024)} kB`,
          baseline: "",
          value: w.missing ? "" : `${w.scripts.length} files, ${round(w.rawBytes / 1024)} kB raw`,
          goal: w.path === "/trade" ? "≤ 190 kB" : "report",
          ok: w.path === "/trade" ? !w.missing && w.gzipBytes / 1024 <= 190 : !w.missing,
        })
      }

      logLine(`page speed: ${cfg.speedRounds} loads each of /trade and /conversions in headless Chromium`)
      const browsing = await Browsing.open(app.origin, cookie)
      onCleanup(() => browsing.close())
      const speeds = new Map<string, PageSpeed[]>()
      for (let r = 0; r < cfg.speedRounds; r++) {
        for (const page of ["/trade", "/conversions"]) {
          const result = await browsing.measure(page, { settleMs: cfg.settleMs, ...(page === "/trade" ? { typeAmount: "0.0125" } : {}) })
          speeds.set(page, [...(speeds.get(page) ?? []), result])
          apiRequests++
          logLine(`  ${page}: ${result.missing ? "missing" : `LCP ${round(result.lcp)} ms, CLS ${round(result.cls, 3)}${result.inp !== undefined ? `, INP ${round(result.inp)} ms (${result.inpNote})` : result.inpNote ? ` (${result.inpNote})` : ""}`}`)
        }
      }
      await browsing.close()
      results.pageSpeed = Object.fromEntries(speeds)
      for (const [page, list] of speeds) {
        const missing = list.some((x) => x.missing)
        const group = "7. page speed (headless Chromium, localhost)"
        if (missing) {
          rows.push({ group, what: `${page}`, console: "missing", baseline: "", value: "", goal: "LCP ≤ 800 ms, CLS ≤ 0.05", ok: false })
          continue
        }
        const lcp = median(list.map((x) => x.lcp))
        const cls = max(list.map((x) => x.cls))
        rows.push({ group, what: `${page} LCP (median of ${list.length} loads)`, console: `${round(lcp, 0)} ms`, baseline: "", value: `worst ${round(max(list.map((x) => x.lcp)), 0)} ms`, goal: "≤ 800 ms", ok: lcp <= 800 })
        rows.push({ group, what: `${page} CLS (worst load)`, console: `${round(cls, 3)}`, baseline: "", value: "", goal: "≤ 0.05", ok: cls <= 0.05 })
        if (page === "/trade") {
          const inps = list.map((x) => x.inp).filter((x): x is number => x !== undefined)
          const inp = median(inps)
          rows.push({
            group,
            what: `/trade INP, typing an amount (median of ${inps.length} loads)`,
            console: inps.length > 0 ? (inp <= 16 ? "< 16 ms" : `${round(inp, 0)} ms`) : "missing",
            baseline: "",
            value: inps.length > 0 ? `worst ${max(inps) <= 16 ? "< 16" : round(max(inps), 0)} ms` : (list[0]?.inpNote ?? ""),
            goal: "≤ 50 ms",
            ok: inps.length > 0 && inp <= 50,
          })
        }
      }
    }

    logLine("stopping the console")
    await app.server.stop(20_000)
    // Service side, sandbox mode: tokens the embedded sandbox issued over this whole run.
    const tokens = await countSandboxTokens(path.join(consoleData, "pglite"), clientId)
    results.sandboxModeTokens = { ...tokens, consoleApiRequests: apiRequests }
    logLine(`tokens the embedded sandbox issued to the console: ${JSON.stringify(tokens.byScopes)}`)
    rows.push({
      group: "4. token economy",
      what: `sandbox mode: tokens the embedded sandbox issued over this run (${apiRequests}+ API requests)`,
      console: `${tokens.count}`,
      baseline: "",
      value: Object.keys(tokens.byScopes).length > 1 ? `${Object.keys(tokens.byScopes).length} scope sets` : "",
      goal: "1 per scope set",
      ok: Object.values(tokens.byScopes).every((n) => n === 1),
    })
  }

  // -------------------------------------------------------------- 4, 5: tokens and quote fan-out, counted by the service
  if (args.only.has("tokens")) {
    if (!sandbox) throw new Error("no sandbox")
    const proxyPort = await freePort(4500, 4599)
    const proxy: CountingProxy = await startCountingProxy(sandbox.origin, proxyPort)
    onCleanup(() => proxy.close())
    const password = randomBytes(12).toString("base64url")
    const users = JSON.stringify([{ email: "bench@example.com", role: "trader", passwordHash: bcrypt.hashSync(password, 8) }])
    const tokenRounds: { tokens: number; calls: number; errors: number; seconds: number }[] = []
    const fanout: {
      quotesCalls: number
      seconds: number
      rate: number
      shortestGapMs: number
      perSecondMax: number
      requests: number
      errors: number
      rps: number
    }[] = []
    logLine(`token economy and quote fan-out: ${cfg.tokenRounds} rounds, each on a fresh console pointed at the sandbox through a counting proxy`)
    for (let r = 0; r < cfg.tokenRounds; r++) {
      const port = await freePort(3500, 3599, new Set())
      const started = Date.now()
      const app = await startConsole({
        name: `console-upstream-${r + 1}`,
        distDir,
        port,
        dataDir: tempDir("console-bench-upstream-"),
        logDir,
        env: {
          UPSTREAM_BASE_URL: `${proxy.origin}/sandbox/v2`,
          UPSTREAM_TOKEN_URL: `${proxy.origin}/sandbox/oauth2/token`,
          UPSTREAM_CLIENT_ID: clientId,
          UPSTREAM_CLIENT_SECRET: clientSecret,
          NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
          CONSOLE_USERS: users,
        },
      })
      const cookie = await signIn(app.origin, "bench@example.com", password)
      const headers = { cookie }
      const routes = [`/api/profiles`, `/api/profiles/${directProfile}/balances`, `/api/quotes?markets=BTCUSD`]
      const burst = await closedLoop({
        origin: app.origin,
        connections: cfg.tokenConcurrency,
        totalRequests: cfg.tokenCalls,
        next: (i) => ({ path: routes[i % routes.length] ?? "/api/profiles", headers }),
      })
      const tokens = proxy.count(isTokenRequest, started)
      tokenRounds.push({ tokens, calls: burst.requests, errors: burst.errors, seconds: burst.seconds })
      if (burst.errors > 0) failures.push(`token economy: ${burst.errors} errors (${burst.firstError})`)
      logLine(`  round ${r + 1}: ${burst.requests} calls at ${cfg.tokenConcurrency} concurrent in ${round(burst.seconds)} s, ${burst.errors} errors; token requests the service received: ${tokens}`)

      const t0 = Date.now()
      const poll = await pollers({
        origin: app.origin,
        clients: cfg.pollClients,
        periodMs: cfg.pollPeriodMs,
        durationMs: cfg.pollSeconds * 1000,
        request: { path: "/api/quotes?markets=BTCUSD", headers },
      })
      const t1 = Date.now()
      const calls = proxy.arrivals.filter((a) => a.at >= t0 && a.at <= t1 && isQuotesCall(a))
      const times = calls.map((c) => c.at).sort((a, b) => a - b)
      const gaps = times.slice(1).map((t, k) => t - (times[k] ?? t))
      fanout.push({
        quotesCalls: calls.length,
        seconds: (t1 - t0) / 1000,
        // Calls per second from the arrivals themselves: n calls span n − 1 intervals.
        rate: times.length > 1 ? (times.length - 1) / (((times.at(-1) ?? 0) - (times[0] ?? 0)) / 1000) : times.length / ((t1 - t0) / 1000),
        shortestGapMs: gaps.length > 0 ? Math.min(...gaps) : Number.NaN,
        perSecondMax: busiestSecond(times),
        requests: poll.requests,
        errors: poll.errors,
        rps: poll.rps,
      })
      if (poll.errors > 0) failures.push(`quote fan-out: ${poll.errors} errors (${poll.firstError})`)
      logLine(`  round ${r + 1}: ${cfg.pollClients} clients polling every ${cfg.pollPeriodMs} ms for ${cfg.pollSeconds} s: ${poll.requests} polls (${round(poll.rps)} /s), ${poll.errors} errors; quotes calls the service received: ${calls.length} (${round(calls.length / ((t1 - t0) / 1000), 2)}/s)`)
      await app.server.stop(20_000)
    }
    results.tokens = tokenRounds
    results.quoteFanout = fanout
    const tokenMedian = median(tokenRounds.map((x) => x.tokens))
    rows.push({
      group: "4. token economy",
      what: `${cfg.tokenCalls} calls at ${cfg.tokenConcurrency} concurrent, cold console: token requests the service received`,
      console: `${tokenMedian} (max ${max(tokenRounds.map((x) => x.tokens))})`,
      baseline: "",
      value: `${tokenRounds.reduce((a, x) => a + x.errors, 0)} errors`,
      goal: "1",
      ok: tokenRounds.every((x) => x.tokens === 1),
    })
    const rate = median(fanout.map((x) => x.rate))
    rows.push({
      group: "5. quote fan-out",
      what: `${cfg.pollClients} clients polling /api/quotes every ${cfg.pollPeriodMs} ms for ${cfg.pollSeconds} s`,
      console: `${round(rate, 2)} quotes calls/s at the service`,
      baseline: `${round(median(fanout.map((x) => x.rps)), 0)} polls/s to the console`,
      value: `${median(fanout.map((x) => x.quotesCalls))} calls in ${round(median(fanout.map((x) => x.seconds)), 0)} s; shortest gap ${round(Math.min(...fanout.map((x) => x.shortestGapMs)), 0)} ms`,
      goal: "≤ 1 /s",
      // To the precision of the measurement: the console spaces its calls 1,000 ms apart by
      // its own clock; arrival jitter of a few ms shows up in single gaps, not in the rate.
      ok: round(rate, 2) <= 1,
    })
  }

  // -------------------------------------------------------------- 9: scale-out (e2e/perf/scale.ts)
  if (args.only.has("scale")) await scaleSection({ distDir, logDir, settings: args.smoke ? SCALE_SMOKE : SCALE_FULL, logLine, rows, results, failures })

  // -------------------------------------------------------------- 6b: the minimal Next.js page
  if (args.only.has("baseline") && baselineBuild) {
    const build = await baselineBuild
    const { weight, more: handler } = await measureBaseline(build, await freePort(3500, 3599, new Set()), logDir, async (origin) => {
      // The same shapes as the console's measurements, against a bare route handler.
      const hello = (): HttpRequest => ({ path: "/api/hello", headers: { cookie: "next-auth.session-token=" + "x".repeat(700) } })
      await closedLoop({ origin, connections: 10, durationMs: cfg.throughputSeconds * 1000, next: hello })
      const agent = keepAliveAgent(1)
      const sequential: number[] = []
      for (let i = 0; i < cfg.latencyPairs; i++) {
        const started = performance.now()
        sequential.push(expectOk(await send(origin, hello(), agent), "GET /api/hello").ms)
        await sleep(EXECUTIONS_PACE_MS - (performance.now() - started))
      }
      agent.destroy()
      const throughput = await closedLoop({ origin, connections: 10, durationMs: cfg.throughputSeconds * 1000, next: hello })
      return { p50: percentile(sequential, 50), p99: percentile(sequential, 99), throughput }
    })
    results.baselinePage = { ...weight, next: build.next, react: build.react }
    results.baselineRouteHandler = handler
    logLine(`bare Next.js route handler: one at a time p50 ${round(handler.p50)} ms, p99 ${round(handler.p99)} ms; 10 connections ${round(handler.throughput.rps, 0)} req/s`)
    const floor = "reference: a bare Next.js route handler (same next, same machine)"
    rows.push({ group: floor, what: "one at a time, 8/s: p50 / p99", console: `${round(handler.p50)} / ${round(handler.p99)} ms`, baseline: "", value: "", goal: "report", ok: true })
    rows.push({
      group: floor,
      what: "10 connections",
      console: `${round(handler.throughput.rps, 0)} req/s, p99 ${round(handler.throughput.p99)} ms`,
      baseline: "",
      value: `${handler.throughput.errors} errors`,
      goal: "report",
      ok: handler.throughput.errors === 0,
    })
    logLine(`minimal Next.js page (next ${build.next}, react ${build.react}): ${round(weight.gzipBytes / 1024)} kB gzip (${weight.scripts.length} scripts)`)
    rows.push({
      group: "6. page weight, first-load JS (gzip)",
      what: `minimal Next.js page (next ${build.next}, react ${build.react}, same measure)`,
      console: `${round(weight.gzipBytes / 1024)} kB`,
      baseline: "",
      value: `${weight.scripts.length} files, ${round(weight.rawBytes / 1024)} kB raw`,
      goal: "baseline",
      ok: weight.gzipBytes > 0,
    })
    const trade = (results.pageWeight as PageWeight[] | undefined)?.find((w) => w.path === "/trade")
    if (trade && !trade.missing) {
      rows.push({
        group: "6. page weight, first-load JS (gzip)",
        what: "/trade above the minimal page",
        console: `+${round((trade.gzipBytes - weight.gzipBytes) / 1024)} kB`,
        baseline: "",
        value: `× ${round(trade.gzipBytes / weight.gzipBytes, 2)}`,
        goal: "report",
        ok: true,
      })
    }
  }

  // -------------------------------------------------------------- report
  const loadAtEnd = loadAverage()
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? "?",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAtStart,
    loadAtEnd,
    loadDuringRun: { median: round(median(loadSamples), 2), max: round(max(loadSamples), 2), samples: loadSamples.length },
  }
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    smoke: args.smoke,
    distDir,
    machine,
    settings: { ...cfg, executionsPaceMs: EXECUTIONS_PACE_MS },
    rows,
    results,
    failures,
  }
  // Both git-ignored; a smoke run never overwrites the results of a full one.
  const resultsFile = args.smoke ? path.join(repoRoot, "test-results", "bench-smoke.json") : path.join(repoRoot, "bench-results.json")
  mkdirSync(path.dirname(resultsFile), { recursive: true })
  writeFileSync(resultsFile, JSON.stringify(report, null, 2) + "\n")
  process.stdout.write("\n" + printTable(rows) + "\n")
  process.stdout.write(
    `\nmachine: ${machine.cpus} × ${machine.model}, ${machine.memoryGiB} GiB, node ${machine.node}; load average at start ${loadAtStart.join(" ")}, during the run median ${machine.loadDuringRun.median} (max ${machine.loadDuringRun.max})\n`,
  )
  process.stdout.write(`markdown for the README:\n\n${tableMarkdown(rows)}\n`)
  if (failures.length > 0) {
    process.stdout.write(`\nthe benchmark itself failed:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`)
    process.exitCode = 1
  }
  if (args.smoke) {
    const empty = rows.filter((r) => /NaN|undefined/.test(`${r.console} ${r.baseline} ${r.value}`))
    if (empty.length > 0) {
      process.stdout.write(`\nsmoke: measurements without a number: ${empty.map((r) => `${r.group} ${r.what}`).join("; ")}\n`)
      process.exitCode = 1
    }
  }
}

/** What PGlite alone adds to a Node process's resident memory (an in-memory database, as created). */
function pgliteAloneMiB(): number {
  const script = [
    'import { PGlite } from "@electric-sql/pglite"',
    "const before = process.memoryUsage().rss",
    "const db = await PGlite.create()",
    'await db.query("select 1")',
    "process.stdout.write(String((process.memoryUsage().rss - before) / 2 ** 20))",
    "await db.close()",
  ].join("\n")
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, encoding: "utf8" })
  return Number(out.trim())
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

/** The most arrivals within any 1,000 ms (sliding window). */
function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 1000) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

/** Issued tokens in the console's sandbox tables, read after the console stopped (PGlite: one process per folder). */
async function countSandboxTokens(dataDir: string, clientId: string): Promise<{ count: number; byScopes: Record<string, number> }> {
  const { PGlite } = await import("@electric-sql/pglite")
  const db = await PGlite.create(dataDir)
  try {
    const { rows } = await db.query<{ scopes: string; n: number }>(
      "select array_to_string(scopes, ' ') as scopes, count(*)::int as n from sandbox_tokens where client_id = $1 group by 1",
      [clientId],
    )
    return { count: rows.reduce((a, r) => a + r.n, 0), byScopes: Object.fromEntries(rows.map((r) => [r.scopes, r.n])) }
  } finally {
    await db.close()
  }
}

let stopping = false
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    process.stderr.write(`\n${signal}: stopping everything the benchmark started\n`)
    void cleanupAll().finally(() => process.exit(130))
  })
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  })
  .finally(() => cleanupAll())

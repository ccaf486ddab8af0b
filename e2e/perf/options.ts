// The benchmark's command line, its two presets (full and smoke) and the constants every
// measurement shares.
import { UPSTREAM_SCOPES } from "../../lib/schemas/scopes"
import { scaleDatabaseServer } from "./postgres"

export const PHASES = ["latency", "throughput", "pages", "tokens", "baseline", "startup", "scale", "shutdown", "events", "deposits", "statements", "takeover", "hung-db", "push"] as const
export type Phase = (typeof PHASES)[number]
const ON_POSTGRES: readonly Phase[] = ["scale", "shutdown", "takeover", "hung-db"]

export interface Args {
  smoke: boolean
  build: "auto" | "always" | "never"
  dist: string
  only: Set<Phase>
  cpuProf: boolean
  explain: boolean
  rounds: number
  /** --only was given: some sections, not the whole run. */
  onlySome: boolean
  /** docs/performance.md: written by a plain full run ("auto"), by any other full-size run given --docs, never with --no-docs. */
  docs: "auto" | "write" | "skip"
  /** --traced: the latency section adds a sandbox-mode console exporting traces to a local OTLP receiver. */
  traced: boolean
  /** --push-desks 50: the push section's counts of open desks (default 50, 200 and 300; the Chromium tabs join 200, else the first). */
  pushDesks: number[] | null
}

export function parseArgs(argv: string[]): Args {
  // scale, shutdown, takeover and hung-db need a Postgres server: they run by default only when one is configured.
  const only = new Set<Phase>(PHASES.filter((p) => !ON_POSTGRES.includes(p) || scaleDatabaseServer()))
  const args: Args = { smoke: false, build: "auto", dist: "", only, cpuProf: false, explain: false, rounds: 0, onlySome: false, docs: "auto", traced: false, pushDesks: null }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    if (arg === "--smoke") args.smoke = true
    else if (arg === "--no-build") args.build = "never"
    else if (arg === "--build") args.build = "always"
    else if (arg === "--cpu-prof") args.cpuProf = true
    else if (arg === "--explain") args.explain = true
    else if (arg === "--traced") args.traced = true
    else if (arg === "--docs") args.docs = "write"
    else if (arg === "--no-docs") args.docs = "skip"
    else if (arg === "--rounds") {
      args.rounds = Number(argv[++i])
      if (!Number.isInteger(args.rounds) || args.rounds < 1) throw new Error("--rounds takes a whole number ≥ 1")
    }
    else if (arg === "--dist") args.dist = argv[++i] ?? ""
    else if (arg === "--push-desks") {
      args.pushDesks = (argv[++i] ?? "").split(",").map(Number)
      if (args.pushDesks.length === 0 || args.pushDesks.some((n) => !Number.isInteger(n) || n < 1)) throw new Error("--push-desks takes whole numbers ≥ 1, comma-separated")
    }
    else if (arg === "--only") {
      const names = (argv[++i] ?? "").split(",").filter(Boolean)
      for (const n of names) if (!PHASES.includes(n as Phase)) throw new Error(`--only: unknown phase ${n} (${PHASES.join(", ")})`)
      args.only = new Set(names as Phase[])
      args.onlySome = true
    } else throw new Error(`unknown option ${arg}\nusage: npm run bench -- [--smoke] [--build|--no-build] [--dist DIR] [--only ${PHASES.join(",")}] [--rounds N] [--push-desks 50,300] [--cpu-prof] [--explain] [--traced] [--docs|--no-docs]`)
  }
  // A smoke run's numbers mean nothing, and it runs in npm test: it must leave the tree clean.
  if (args.smoke && args.docs === "write") throw new Error("--docs: a smoke run never writes docs/performance.md")
  return args
}

export const FULL = {
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
  tickWatchMs: 10_000,
  startRounds: 3,
}
export type Settings = typeof FULL

export const SMOKE: Settings = {
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
  tickWatchMs: 3_000,
  startRounds: 1,
}

/** The preset, with `--rounds N` applied to every measurement that has rounds. */
export function settingsFor(args: Args): Settings {
  const preset = args.smoke ? SMOKE : FULL
  return args.rounds
    ? { ...preset, latencyRounds: args.rounds, throughputRounds: args.rounds, tokenRounds: args.rounds, speedRounds: args.rounds, startRounds: args.rounds }
    : preset
}

/**
 * Requests to /profiles/{id}/quote-executions are sent one at a time, 8 per second: the
 * service allows 10 per second and the console enforces that locally (it queues anything
 * faster), so a faster pace would measure the limiter's queue, not the console.
 */
export const EXECUTIONS_PACE_MS = 125
/** The service's other limit (50/s), which the console also enforces: upstream-bound GETs are measured within it. */
export const PROFILE = "Treasury"
export const TRADER = { email: "trader@example.com", password: "demo-password" }
/** /sandbox needs the admin role. */
export const ADMIN = { email: "admin@example.com", password: "demo-password" }
export const SCOPES = UPSTREAM_SCOPES
export const PAGES = ["/sign-in", "/", "/trade", "/executions", "/conversions/new", "/conversions", "/sandbox"] as const
export type BenchPage = (typeof PAGES)[number]
/** Who loads each page: nobody (the sign-in form), the admin (the sandbox tools), else the trader. */
export function visitorOf(page: BenchPage): "signed out" | "admin" | "trader" {
  return page === "/sign-in" ? "signed out" : page === "/sandbox" ? "admin" : "trader"
}
/** Pages with an LCP goal (≤ 800 ms); the others' LCP is a report. Every page has the CLS goal. */
export const LCP_GOAL_PAGES: readonly BenchPage[] = ["/", "/trade", "/conversions"]
export const LCP_GOAL_MS = 800
export const CLS_GOAL = 0.05
/**
 * The desk's longest task while its quotes tick, hands off: a key pressed meanwhile waits for
 * it, and 100 ms is the budget for answering input (RAIL). The quotes change every second.
 */
export const TICK_TASK_GOAL_MS = 100
/** First-load JS goal (gzip) of the pages that have one: the overview (issue 17) and the trade desk (issue 22). */
export const WEIGHT_GOAL_KB: Readonly<Record<string, number>> = { "/": 210, "/trade": 190 }
export const BASE_AMOUNT = "0.0001"

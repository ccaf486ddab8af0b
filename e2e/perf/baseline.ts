// 6b and the reference rows: the minimal Next.js app (same next and react) - its page's
// weight, and its bare route handler one at a time and at 10 connections, the framework
// floor every console API request pays.
import { type Bench, logLine } from "./context"
import { type HttpRequest, expectOk, keepAliveAgent, send } from "./http"
import { closedLoop } from "./load"
import { EXECUTIONS_PACE_MS } from "./options"
import { type BaselineBuild, type PageWeight, pageWeight } from "./page-weight"
import { percentile, round, sleep } from "./stats"

/** The console's GET routes at 10 connections, as a share of what a bare route handler serves. */
const THROUGHPUT_GOAL = 0.9

export interface MinimalApp {
  origin: string
  build: BaselineBuild
}

export async function measureMinimalApp(bench: Bench, minimal: MinimalApp): Promise<void> {
  const { cfg, rows, results } = bench
  const { build, origin } = minimal
  const weight = await pageWeight(origin, "/")
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
  const handler = { p50: percentile(sequential, 50), p99: percentile(sequential, 99), throughput }
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
  const consoleRps = results.consoleGetRps10
  if (typeof consoleRps === "number") {
    const ratio = consoleRps / handler.throughput.rps
    rows.push({
      group: "3. throughput, console GET routes (/api/quotes, /api/me)",
      what: "10 connections, against the bare route handler of the same run",
      console: `${round(consoleRps, 0)} req/s`,
      baseline: `${round(handler.throughput.rps, 0)} req/s`,
      value: `× ${round(ratio, 2)}`,
      goal: `≥ ${THROUGHPUT_GOAL}`,
      ok: ratio >= THROUGHPUT_GOAL,
    })
  }
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

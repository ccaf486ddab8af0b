// 3, 8. Throughput and memory: a closed loop on keep-alive connections at 10 and 50
// connections, alternating GET routes the console answers itself, while the console's
// process group's RSS is sampled every 100 ms; then one upstream-bound route, which the
// console holds to the service's rate limit.
import { execFileSync } from "node:child_process"
import { type Bench, logLine } from "./context"
import type { HttpRequest } from "./http"
import { type LoadResult, closedLoop } from "./load"
import { groupMemory, sampleMemory } from "./processes"
import { repoRoot } from "./servers"
import { median, round } from "./stats"
import type { ConsoleUnderTest } from "./targets"

export async function measureThroughput(bench: Bench, app: ConsoleUnderTest): Promise<void> {
  const { cfg, rows, results, failures } = bench
  const routes = ["/api/quotes?markets=BTCUSD", "/api/me"]
  const mix = (i: number): HttpRequest => ({ path: routes[i % routes.length] ?? "/api/me", headers: app.headers })
  const perLevel = new Map<number, LoadResult[]>()
  const memory = sampleMemory(app.server.pid)
  logLine(`throughput: ${cfg.throughputRounds} rounds × ${cfg.throughputSeconds} s at 10 and 50 connections (${routes.join(", ")})`)
  // Warm-up: the server's JIT needs a few thousand requests before it settles.
  await closedLoop({ origin: app.origin, connections: 10, durationMs: cfg.throughputSeconds * 1000, next: mix })
  for (let r = 0; r < cfg.throughputRounds; r++) {
    for (const connections of [10, 50]) {
      const result = await closedLoop({ origin: app.origin, connections, durationMs: cfg.throughputSeconds * 1000, next: mix })
      app.apiRequests += result.requests
      perLevel.set(connections, [...(perLevel.get(connections) ?? []), result])
      logLine(`  round ${r + 1}, ${connections} connections: ${round(result.rps)} req/s, ${result.errors} errors, p50 ${round(result.p50)} ms, p99 ${round(result.p99)} ms`)
    }
  }
  // Upstream-bound: every request is a call to the service, within its 50/s limit.
  const upstreamBound = await closedLoop({
    origin: app.origin,
    connections: 10,
    durationMs: Math.max(2, cfg.throughputSeconds / 2) * 1000,
    next: () => ({ path: `/api/profiles/${app.profile}/balances`, headers: app.headers }),
  })
  app.apiRequests += upstreamBound.requests
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

// 3, 8. Throughput and memory: a closed loop on keep-alive connections at 10 and 50
// connections, alternating GET routes the console answers itself, while the console's
// process group's RSS is sampled every 100 ms; then one upstream-bound route, which the
// console holds to the service's rate limit.
import { type Bench, logLine } from "./context"
import { type LoadResult, closedLoop } from "./load"
import { MEMORY_GOALS, THROUGHPUT_ROUTES, throughputMix } from "./memory"
import { groupMemory, sampleMemory } from "./processes"
import { median, round } from "./stats"
import type { ConsoleUnderTest } from "./targets"

export async function measureThroughput(bench: Bench, app: ConsoleUnderTest): Promise<void> {
  const { cfg, rows, results, failures } = bench
  const routes = THROUGHPUT_ROUTES
  const mix = throughputMix(app.headers)
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
      goal: "0 errors",
      ok: errors === 0,
    })
  }
  // Compared with the bare route handler of the minimal app, when that is measured too.
  results.consoleGetRps10 = median((perLevel.get(10) ?? []).map((x) => x.rps))
  rows.push({
    group: "3. throughput, console GET routes (/api/quotes, /api/me)",
    what: "GET balances (calls the service), 10 connections",
    console: `${round(upstreamBound.rps, 0)} req/s, p99 ${round(upstreamBound.p99)} ms`,
    baseline: "",
    value: `${upstreamBound.errors} errors`,
    goal: "≤ 50 req/s (service limit)",
    ok: upstreamBound.errors === 0 && upstreamBound.rps <= 52,
  })
  rows.push({
    group: "8. memory",
    what: "sandbox mode, fresh folder: peak RSS during the throughput run",
    console: `${round(mem.peakMiB, 0)} MiB`,
    baseline: "",
    value: `kernel's lifetime peak (VmHWM) ${round(hwm.peakMiB, 0)} MiB`,
    goal: `≤ ${MEMORY_GOALS.peakMiB} MiB`,
    ok: mem.samples > 0 && mem.peakMiB <= MEMORY_GOALS.peakMiB,
  })
}

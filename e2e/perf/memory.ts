// 8. Memory: the RSS of a console's whole process group, once it has started and settled,
// and at its highest under the throughput run's load (sampled every 100 ms).
import type { HttpRequest } from "./http"
import { type LoadResult, closedLoop } from "./load"
import { type Server, groupMemory, sampleMemory } from "./processes"
import { sleep } from "./stats"

/** Sandbox mode, fresh or existing data folder: a console that fits beside everything else on a laptop. */
export const MEMORY_GOALS = { afterStartMiB: 350, peakMiB: 450 } as const

/** How long after /api/health first answers the "after start" figure is read: start-up work (migrations, the first reconcile) has settled. */
const SETTLE_MS = 2000

export async function rssAfterStart(server: Server): Promise<number> {
  await sleep(SETTLE_MS)
  return groupMemory(server.pid).rssMiB
}

/** The throughput run's GET routes: answered by the console itself. */
export const THROUGHPUT_ROUTES = ["/api/quotes?markets=BTCUSD", "/api/me"]

export function throughputMix(headers: Record<string, string>): (i: number) => HttpRequest {
  return (i) => ({ path: THROUGHPUT_ROUTES[i % THROUGHPUT_ROUTES.length] ?? "/api/me", headers })
}

/**
 * One round of the throughput run's load (a warm-up at 10 connections, then 10 and 50
 * connections, `seconds` each) while sampling the process group's RSS; the highest sum seen.
 */
export async function peakUnderLoad(
  origin: string,
  server: Server,
  headers: Record<string, string>,
  seconds: number,
): Promise<{ peakMiB: number; loads: LoadResult[] }> {
  const memory = sampleMemory(server.pid)
  const loads: LoadResult[] = []
  for (const connections of [10, 10, 50]) {
    loads.push(await closedLoop({ origin, connections, durationMs: seconds * 1000, next: throughputMix(headers) }))
  }
  return { peakMiB: memory.stop().peakMiB, loads }
}

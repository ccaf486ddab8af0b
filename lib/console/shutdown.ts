import "server-only"
import { beginShutdown, shuttingDown, writesInFlight, writesSettled } from "@/lib/console/draining"
import { builtRuntime } from "@/lib/console/runtime"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { withinOrNull } from "@/lib/within"

/** How long giving the leases up may take (a database that does not answer lets them lapse instead). */
const RELEASE_MS = 1500
/** After the writes are done: time for their answers to be written before a forced exit. */
const ANSWER_GRACE_MS = 1000

let drainedCleanly = false

/**
 * Graceful shutdown on SIGTERM (and SIGINT), installed once per server process from
 * instrumentation.ts. Next's own handler, when there is one, stops accepting connections
 * and exits once the requests in flight are answered; beside it, this one
 *  1. marks the instance as shutting down: readiness answers 503 and new writes are
 *     refused (503 `shutting_down`, nothing done), so callers take them elsewhere;
 *  2. gives the quotes lease and the instance row up at once, so another instance polls
 *     quotes on its next tick instead of after the lease lapses;
 *  3. waits for the writes already taken (placements in flight) up to SHUTDOWN_TIMEOUT_MS;
 *  4. exits 0 when they all finished (1 when some were cut short), forcing the exit if
 *     nothing else has exited by then.
 */
export function installShutdown(): void {
  const installed = globalThis as unknown as { __consoleShutdownInstalled?: boolean }
  if (installed.__consoleShutdownInstalled) return
  installed.__consoleShutdownInstalled = true
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    // Next's handler, if any, was installed before this one: without one, this one exits.
    const alone = process.listenerCount(signal) === 0
    process.once(signal, () => void shutdown(signal, alone))
  }
  // Next exits 143 (128 + SIGTERM) once its server has closed: a shutdown that drained
  // cleanly is a clean stop, and says so.
  process.on("exit", () => {
    if (drainedCleanly) process.exitCode = 0
  })
}

async function shutdown(signal: string, alone: boolean): Promise<void> {
  if (shuttingDown()) return
  beginShutdown()
  const timeoutMs = env().shutdownTimeoutMs
  const started = Date.now()
  log.info("console.shutting_down", { signal, writesInFlight: writesInFlight(), timeoutMs })
  const runtime = await withinOrNull(async () => (await builtRuntime()) ?? null, RELEASE_MS, "console.shutdown_runtime_failed")
  if (runtime) {
    await withinOrNull(() => Promise.all([runtime.quotes.stop(), runtime.instance.stop()]), RELEASE_MS, "console.shutdown_release_failed")
  }
  const drained = await writesSettled(Math.max(0, timeoutMs - (Date.now() - started)))
  drainedCleanly = drained
  log.info("console.stopped", { signal, drained, writesLeft: writesInFlight(), ms: Date.now() - started })
  const exit = () => process.exit(drained ? 0 : 1)
  if (alone || !drained) exit()
  else setTimeout(exit, ANSWER_GRACE_MS).unref()
}

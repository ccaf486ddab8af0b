import "server-only"
import { beginShutdown, shuttingDown, writesInFlight, writesSettled } from "@/lib/console/draining"
import { builtRuntime } from "@/lib/console/runtime"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { flushTracesBeforeExit } from "@/lib/tracing"
import { withinOrNull } from "@/lib/within"

/** How long giving the leases up may take (a database that does not answer lets them lapse instead). */
const RELEASE_MS = 1500
/** After the writes are done: time for their answers to be written before a forced exit. */
const ANSWER_GRACE_MS = 1000

type SignalListener = (signal: NodeJS.Signals) => void

/**
 * Graceful shutdown on SIGTERM (and SIGINT), installed once per server process from
 * instrumentation.ts. Next's own handler (installed before this one) stops accepting
 * connections and exits once the requests in flight are answered; this one takes its
 * place and calls it at the right moment:
 *  1. marks the instance as shutting down: readiness answers 503 and new writes are
 *     refused (503 `shutting_down`, nothing done), so callers take them elsewhere;
 *  2. gives the quotes lease, the event reader's lease and the instance row up at once, so
 *     another instance polls quotes and reads events on its next tick instead of after the
 *     leases lapse;
 *  3. hands over to Next's handler: no new connections, the requests in flight answered;
 *  4. waits for the writes already taken (placements in flight) up to SHUTDOWN_TIMEOUT_MS
 *     and exits 0 when they all finished (1 when some were cut short);
 *  5. with traces on, the exit (Next's or this one's) first sends the spans still batched,
 *     for at most TRACE_FLUSH_MS (lib/tracing.ts).
 */
export function installShutdown(): void {
  const installed = globalThis as unknown as { __consoleShutdownInstalled?: boolean }
  if (installed.__consoleShutdownInstalled) return
  installed.__consoleShutdownInstalled = true
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const next = process.listeners(signal) as SignalListener[]
    for (const listener of next) process.removeListener(signal, listener)
    process.once(signal, () => void shutdown(signal, next))
  }
  // Next exits 128 + the signal's number once its server has closed: with every write
  // taken finished by then, the stop was clean, and says so.
  process.on("exit", (code) => {
    if (shuttingDown() && writesInFlight() === 0 && (code === 143 || code === 130)) process.exitCode = 0
  })
}

async function shutdown(signal: NodeJS.Signals, next: SignalListener[]): Promise<void> {
  if (shuttingDown()) return
  beginShutdown()
  flushTracesBeforeExit()
  const timeoutMs = env().shutdownTimeoutMs
  const started = Date.now()
  log.info("console.shutting_down", { signal, writesInFlight: writesInFlight(), timeoutMs })
  const runtime = await withinOrNull(async () => (await builtRuntime()) ?? null, RELEASE_MS, "console.shutdown_runtime_failed")
  if (runtime) {
    await withinOrNull(() => Promise.all([runtime.quotes.stop(), runtime.events?.stop(), runtime.snapshots.stop(), runtime.notifier.stop(), runtime.instance.stop(), runtime.stream.stop()]), RELEASE_MS, "console.shutdown_release_failed")
  }
  for (const listener of next) listener(signal)
  const drained = await writesSettled(Math.max(0, timeoutMs - (Date.now() - started)))
  log.info("console.stopped", { signal, drained, writesLeft: writesInFlight(), ms: Date.now() - started })
  const exit = () => process.exit(drained ? 0 : 1)
  // Next's handler exits once the answers are written; without one, or past the deadline, this one does.
  if (next.length === 0 || !drained) exit()
  else setTimeout(exit, ANSWER_GRACE_MS).unref()
}

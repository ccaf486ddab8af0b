/**
 * Whether this instance is shutting down, and the writes it still has in flight. Set by
 * lib/console/shutdown.ts on SIGTERM; read by withStaff (new writes are refused with 503
 * `shutting_down`, writes already taken are counted until they finish) and by readiness.
 * No imports: both sides of the shutdown read it.
 */

const state = globalThis as unknown as { __consoleDraining?: { down: boolean; writes: Set<Promise<unknown>> } }
const drain = (state.__consoleDraining ??= { down: false, writes: new Set() })

export function shuttingDown(): boolean {
  return drain.down
}

export function beginShutdown(): void {
  drain.down = true
}

/** Counts `work` as a write in flight until it settles; answers what it answers. */
export function trackWrite<T>(work: Promise<T>): Promise<T> {
  drain.writes.add(work)
  const done = () => drain.writes.delete(work)
  work.then(done, done)
  return work
}

export function writesInFlight(): number {
  return drain.writes.size
}

/** Resolves when every write in flight now has settled, or after `timeoutMs`: true when they all did. */
export async function writesSettled(timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const all = Promise.allSettled([...drain.writes]).then(() => true)
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs)
  })
  try {
    return await Promise.race([all, late])
  } finally {
    clearTimeout(timer)
  }
}

/** Tests: back to a running instance. */
export function resetDraining(): void {
  drain.down = false
  drain.writes.clear()
}

import { AsyncLocalStorage } from "node:async_hooks"

/**
 * One database deadline per request. A write's database work before it sends anything to
 * the service (its session check, its admission: the staff lock, the limits read, the
 * intent) shares one budget, set by the route wrapper (`withStaff`), instead of each wait
 * getting its own: a pool with no free connection, then a transaction, each just under
 * its own limit, added up to twice the budget. The pool's acquire (lib/db/client.ts) and
 * `boundedTransaction` (lib/db/bounded.ts) wait no longer than what is left; past it the
 * request is refused with 503 `database_unavailable` and Retry-After.
 *
 * Once a call that may change something at the service has started (anything but a GET),
 * the deadline is released: what follows records that call's outcome and must not be cut
 * short by a budget meant for getting the request admitted; it has the ordinary bounds.
 */
interface Deadline {
  /** performance.now() when the budget runs out; null once released. */
  at: number | null
}

// On globalThis: the production build gives instrumentation.ts and the routes their own
// copies of a module, and a deadline set by one copy must be seen by another's pool.
const storage = ((globalThis as unknown as { __consoleDbDeadline?: AsyncLocalStorage<Deadline> }).__consoleDbDeadline ??= new AsyncLocalStorage<Deadline>())

/**
 * Runs `work` with `budgetMs` for its database waits, from now. When `work` settles the
 * deadline is released: a timer or loop it started (they keep its context) must not stay
 * held to a budget of a request long answered.
 */
export async function withDatabaseDeadline<T>(budgetMs: number, work: () => Promise<T>): Promise<T> {
  const deadline: Deadline = { at: performance.now() + budgetMs }
  try {
    return await storage.run(deadline, work)
  } finally {
    deadline.at = null
  }
}

/** Milliseconds left of the current request's database budget (0 or less: none left); null when there is no deadline. */
export function databaseTimeLeft(): number | null {
  const at = storage.getStore()?.at
  return at === undefined || at === null ? null : at - performance.now()
}

/** The request has started something at the service: its later database work is no longer held to the deadline. */
export function releaseDatabaseDeadline(): void {
  const store = storage.getStore()
  if (store) store.at = null
}

/** A wait for a connection that would have ended past the request's deadline (answered 503 `database_unavailable`). */
export class DatabaseDeadlineError extends Error {
  override name = "DatabaseDeadlineError"
  /** Not a SQLSTATE: the console's own, recognised by lib/db/unavailable.ts. */
  readonly code = "console_db_deadline"
  constructor() {
    super("no database connection within the request's deadline")
  }
}

/**
 * Whether an error means the database cannot do the work now (unreachable, refusing, out of
 * connections, or past a timeout) rather than that the work itself is wrong: such a request
 * is answered 503 `database_unavailable` with Retry-After, never 500. drizzle wraps the
 * driver's error, so the chain of causes is walked.
 */

// SQLSTATE: query_canceled (statement_timeout), lock_not_available (lock_timeout),
// admin/crash shutdown, cannot connect now, too many connections, connection exceptions,
// idle_in_transaction_session_timeout, transaction_timeout (PostgreSQL 17; also what
// lib/db/bounded.ts's own deadline throws).
const UNAVAILABLE_SQLSTATES = new Set(["57014", "55P03", "25P03", "25P04", "57P01", "57P02", "57P03", "53300", "53400", "08000", "08001", "08003", "08004", "08006"])
// Node's socket errors, as node-postgres passes them on; and the request's own deadline (lib/db/deadline.ts).
const UNAVAILABLE_ERRNOS = new Set(["console_db_deadline", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"])
// node-postgres's own, which carry no code.
const UNAVAILABLE_MESSAGES = [
  /^timeout exceeded when trying to connect$/,
  /^Connection terminated due to connection timeout$/,
  /^Connection terminated unexpectedly$/,
  /^Cannot use a pool after calling end on the pool$/,
  /^Client has encountered a connection error and is not queryable$/,
]

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) return true
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) return true
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(current instanceof Error ? current.message : ""))) return true
    current = current.cause
  }
  return false
}

/** The seconds a client is asked to wait before trying again (Retry-After). */
export const DATABASE_RETRY_AFTER_S = 2

/** The SQLSTATE or socket error code behind an error, for a log line (never its message, which may name the URL). */
export function databaseErrorCode(error: unknown): string | null {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === "string" && /^[\w-]{1,20}$/.test(code)) return code
    current = current.cause
  }
  return null
}

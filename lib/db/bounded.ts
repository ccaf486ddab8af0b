import "server-only"
import { sql } from "drizzle-orm"
import pg from "pg"
import { type Db, transactionBoundsOf } from "@/lib/db/client"
import { databaseTimeLeft } from "@/lib/db/deadline"

/**
 * A transaction bounded as a whole, not statement by statement. The statement and lock
 * timeouts of the pool bound each statement; a transaction of several statements (a
 * create's admission: the staff member's lock, the limits read, the intent insert) could
 * still take their sum, each wait just under the limit (queued behind another admission
 * that holds the staff lock until its own lock wait times out: 2 × 2 s), or hang on a
 * connection that stopped answering. Here the whole transaction, from asking the pool for
 * a connection to its commit, gets `transactionTimeoutMs`, or less when the request's one
 * database deadline (lib/db/deadline.ts) leaves less:
 *
 * - in the database, first thing: `statement_timeout` and `lock_timeout` no longer than the
 *   budget, `idle_in_transaction_session_timeout` of the budget (a transaction its client
 *   stopped driving is ended by the server), and on PostgreSQL 17 or later
 *   `transaction_timeout` (the server's own bound of the whole; older servers have no such
 *   setting, and the clause is skipped);
 * - in the process, a deadline: when it passes before the commit is sent, the caller is
 *   refused at once (a `TransactionTimeoutError`, answered 503 `database_unavailable` like
 *   every other timeout) and the transaction's connection is closed, so the server rolls it
 *   back and nothing it wrote is kept. A commit already sent is waited for: its outcome is
 *   the transaction's.
 *
 * PGlite (no DATABASE_URL) runs in this process on one connection that only this process
 * uses: no other session can hold a lock it waits for and there is no network to hang, and
 * it cannot cancel a statement, so its transactions are left as they are.
 */
export class TransactionTimeoutError extends Error {
  override name = "TransactionTimeoutError"
  /** PostgreSQL 17's SQLSTATE for a transaction past `transaction_timeout`. */
  readonly code = "25P04"
  constructor(budgetMs: number, options?: { cause?: unknown }) {
    super(`the transaction did not finish within its ${budgetMs} ms`, options)
  }
}

/** drizzle's node-postgres transaction runs on `session.client`, the pool's connection. */
function connectionOf(tx: Db): pg.Client | null {
  const client = (tx as unknown as { session?: { client?: unknown } }).session?.client
  return client instanceof pg.Client ? client : null
}

export async function boundedTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  const bounds = transactionBoundsOf(db)
  if (!bounds) return db.transaction(work)
  // Within the request's one deadline too, when it has one (lib/db/deadline.ts).
  const left = databaseTimeLeft()
  const budget = left === null ? bounds.transactionTimeoutMs : Math.min(bounds.transactionTimeoutMs, Math.floor(left))
  // Nothing left (and 0 would mean "no timeout" to the server): refused before asking for a connection.
  if (budget < 1) throw new TransactionTimeoutError(bounds.transactionTimeoutMs)
  const state: { connection: pg.Client | null; expired: boolean; committing: boolean } = { connection: null, expired: false, committing: false }
  let refuse: (error: Error) => void = () => undefined
  const deadline = new Promise<never>((_, reject) => {
    refuse = reject
  })
  const timer = setTimeout(() => {
    if (state.committing) return
    state.expired = true
    // Closing the connection mid-statement: the server rolls the transaction back.
    void state.connection?.end().catch(() => undefined)
    refuse(new TransactionTimeoutError(budget))
  }, budget)
  const transaction = db.transaction(async (tx) => {
    state.connection = connectionOf(tx)
    if (state.expired) throw new TransactionTimeoutError(budget)
    await tx.execute(sql`select
      set_config('statement_timeout', ${String(Math.min(bounds.statementTimeoutMs, budget))}, true),
      set_config('lock_timeout', ${String(Math.min(bounds.lockTimeoutMs, budget))}, true),
      set_config('idle_in_transaction_session_timeout', ${String(budget)}, true),
      case when current_setting('transaction_timeout', true) is null then null
        else set_config('transaction_timeout', ${String(budget)}, true) end`)
    const result = await work(tx)
    // Finished, but too late: the caller has been answered, so this must not commit.
    if (state.expired) throw new TransactionTimeoutError(budget)
    // drizzle sends the commit next, with no timer able to run in between.
    state.committing = true
    return result
  })
  try {
    return await Promise.race([transaction, deadline])
  } catch (error) {
    if (state.expired && !(error instanceof TransactionTimeoutError)) throw new TransactionTimeoutError(budget, { cause: error })
    throw error
  } finally {
    clearTimeout(timer)
    // Refused at the deadline: the transaction still ends (rolled back) on its own.
    transaction.catch(() => undefined)
    deadline.catch(() => undefined)
  }
}

import { sql } from "drizzle-orm"
import type pg from "pg"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { TransactionTimeoutError, boundedTransaction } from "@/lib/db/bounded"
import { DatabaseDeadlineError, withDatabaseDeadline } from "@/lib/db/deadline"
import type { Database } from "@/lib/db/client"
import { isDatabaseUnavailable } from "@/lib/db/unavailable"
import { testDatabaseUrl } from "@/lib/env"
import { queryRows } from "@/lib/db/rows"
import { createTestDatabase } from "@/test/db"

// Statements may each take up to 3 s; the transaction as a whole, 1 s.
const LIMITS = { poolMax: 4, connectTimeoutMs: 1000, statementTimeoutMs: 3000, lockTimeoutMs: 3000, transactionTimeoutMs: 1000 }
const SLACK_MS = 500

async function timed<T>(work: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const started = performance.now()
  try {
    await work
    return { ms: performance.now() - started, error: null }
  } catch (error) {
    return { ms: performance.now() - started, error }
  }
}

describe.skipIf(!testDatabaseUrl())("a bounded transaction on Postgres", () => {
  let database: Database
  const kept = async (mark: string) => (await queryRows<{ n: string }>(database.db, sql`select count(*) as n from bounded_probe where mark = ${mark}`))[0]?.n
  beforeAll(async () => {
    database = await createTestDatabase("postgres", LIMITS)
    await database.db.execute(sql`create table if not exists bounded_probe (mark text not null)`)
  }, 60_000)
  afterAll(async () => {
    await database?.close()
  }, 60_000)

  it("the server ending a transaction its caller stopped driving does not crash the process: the caller gets the error, the pool serves on", async () => {
    // Plain db.transaction, no process-side deadline: the server's FATAL reaches the
    // checked-out connection while no query runs, which pg emits as an "error" event.
    const outcome = await timed(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select set_config('idle_in_transaction_session_timeout', '200', true)`)
        await new Promise((resolve) => setTimeout(resolve, 800))
        await tx.execute(sql`insert into bounded_probe (mark) values ('server-ended')`)
      }),
    )
    expect(outcome.error).toBeInstanceOf(Error)
    expect(await kept("server-ended")).toBe("0")
  })

  it("many statements, each well under the statement timeout, are stopped when their sum passes the transaction's budget: refused, nothing kept", async () => {
    const { ms, error } = await timed(
      boundedTransaction(database.db, async (tx) => {
        await tx.execute(sql`insert into bounded_probe (mark) values ('slow-statements')`)
        for (let i = 0; i < 6; i++) await tx.execute(sql`select pg_sleep(0.3)`)
      }),
    )
    expect(error).toBeInstanceOf(TransactionTimeoutError)
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect(ms).toBeLessThan(LIMITS.transactionTimeoutMs + SLACK_MS)
    expect(await kept("slow-statements")).toBe("0")
  })

  it("a transaction its client stops driving (a hung caller mid-transaction) is refused at the budget and rolled back, and the pool serves on", async () => {
    const { ms, error } = await timed(
      boundedTransaction(database.db, async (tx) => {
        await tx.execute(sql`insert into bounded_probe (mark) values ('hung-client')`)
        await new Promise((resolve) => setTimeout(resolve, 2500))
      }),
    )
    expect(error).toBeInstanceOf(TransactionTimeoutError)
    expect(ms).toBeLessThan(LIMITS.transactionTimeoutMs + SLACK_MS)
    // The work itself ends later; what it wrote must never be committed.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    expect(await kept("hung-client")).toBe("0")
    await expect(boundedTransaction(database.db, (tx) => tx.execute(sql`insert into bounded_probe (mark) values ('after')`))).resolves.toBeDefined()
    expect(await kept("after")).toBe("1")
  }, 15_000)

  it("a lock held elsewhere stops the whole transaction at its budget, though the lock timeout alone would wait longer", async () => {
    const holder = await (database.db as unknown as { $client: { connect(): Promise<{ query(q: string): Promise<unknown>; release(): void }> } }).$client.connect()
    await holder.query("begin")
    await holder.query("lock table bounded_probe in access exclusive mode")
    try {
      const { ms, error } = await timed(boundedTransaction(database.db, (tx) => tx.execute(sql`insert into bounded_probe (mark) values ('locked')`)))
      expect(isDatabaseUnavailable(error)).toBe(true)
      expect(ms).toBeLessThan(LIMITS.transactionTimeoutMs + SLACK_MS)
    } finally {
      await holder.query("rollback")
      holder.release()
    }
    expect(await kept("locked")).toBe("0")
  })

  it("a copy of the modules (the production build gives the routes their own) still bounds the transaction: the bounds live on the pool, not in a module's map", async () => {
    vi.resetModules()
    const copy = await import("@/lib/db/bounded")
    expect(copy.boundedTransaction).not.toBe(boundedTransaction)
    // Unbounded, pg_sleep(2) would run to the statement timeout (3 s) or finish.
    const { ms, error } = await timed(copy.boundedTransaction(database.db, (tx) => tx.execute(sql`select pg_sleep(2)`)))
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect(ms).toBeLessThan(LIMITS.transactionTimeoutMs + SLACK_MS)
  })

  it("a request's one deadline: a query waiting for a connection of a full pool, then a bounded transaction, end together within one budget, not one wait each", async () => {
    const pool = (database.db as unknown as { $client: pg.Pool }).$client
    const held = await Promise.all(Array.from({ length: LIMITS.poolMax }, () => pool.connect()))
    try {
      const outcome = await timed(
        withDatabaseDeadline(LIMITS.transactionTimeoutMs, async () => {
          const first = await database.db.execute(sql`select 1`).catch((error: unknown) => error)
          // drizzle wraps the driver's error: the deadline's is its cause.
          expect((first as { cause?: unknown }).cause ?? first).toBeInstanceOf(DatabaseDeadlineError)
          await boundedTransaction(database.db, (tx) => tx.execute(sql`insert into bounded_probe (mark) values ('one-deadline')`))
        }),
      )
      expect(outcome.error).toBeInstanceOf(TransactionTimeoutError)
      // Without the deadline: the connect timeout (1 s), then the transaction's budget (1 s).
      expect(outcome.ms).toBeLessThan(LIMITS.transactionTimeoutMs + SLACK_MS)
    } finally {
      for (const client of held) client.release()
    }
    // The waits given up do not keep connections: the pool serves on, and nothing was written.
    expect(await kept("one-deadline")).toBe("0")
    await expect(withDatabaseDeadline(LIMITS.transactionTimeoutMs, () => database.db.execute(sql`select 1`))).resolves.toBeDefined()
  })

  it("work inside its budget commits", async () => {
    await boundedTransaction(database.db, async (tx) => {
      await tx.execute(sql`insert into bounded_probe (mark) values ('quick')`)
      await tx.execute(sql`select pg_sleep(0.1)`)
    })
    expect(await kept("quick")).toBe("1")
  })
})

describe("a bounded transaction on PGlite", () => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase("pglite")
  })
  afterAll(async () => {
    await database?.close()
  })

  it("is a plain transaction: one connection in this process, nothing to cancel", async () => {
    await database.db.execute(sql`create table bounded_probe (mark text not null)`)
    await boundedTransaction(database.db, (tx) => tx.execute(sql`insert into bounded_probe (mark) values ('x')`))
    await expect(boundedTransaction(database.db, async (tx) => {
      await tx.execute(sql`insert into bounded_probe (mark) values ('y')`)
      throw new Error("changed my mind")
    })).rejects.toThrow("changed my mind")
    expect(await queryRows<{ mark: string }>(database.db, sql`select mark from bounded_probe`)).toEqual([{ mark: "x" }])
  })
})

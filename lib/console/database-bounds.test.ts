import { randomUUID } from "node:crypto"
import { sql } from "drizzle-orm"
import { NextRequest } from "next/server"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Staff } from "@/lib/auth/roles"
import { submitConversion } from "@/lib/console/submission"
import { intentsWritable } from "@/lib/console/readiness"
import { errorResponse } from "@/lib/console/with-staff"
import { openDatabase } from "@/lib/db/client"
import { withDatabaseDeadline } from "@/lib/db/deadline"
import { queryRows } from "@/lib/db/rows"
import { isDatabaseUnavailable } from "@/lib/db/unavailable"
import { testDatabaseUrl } from "@/lib/env"
import { type ConsoleHarness, createConsoleHarness } from "@/test/console"

// Bounded database work on a real Postgres: a locked table, a pool with no free
// connection, a server that refuses. Each must end in a prompt refusal the console
// answers 503 database_unavailable (never 500), with nothing sent to the service.
const LIMITS = { poolMax: 4, connectTimeoutMs: 800, statementTimeoutMs: 3000, lockTimeoutMs: 800, transactionTimeoutMs: 1000 }
const trader: Staff = { email: "trader@example.com", role: "trader" }

/** The console's answer to a request that failed with `error`. */
async function answerTo(error: unknown): Promise<{ status: number; code: unknown; retryAfter: string | null }> {
  const res = errorResponse(error, randomUUID(), { req: new NextRequest("http://localhost/api/conversions", { method: "POST" }), staff: trader })
  const body = (await res.json()) as { code?: unknown }
  return { status: res.status, code: body.code, retryAfter: res.headers.get("retry-after") }
}

async function failureOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work
  } catch (error) {
    return error
  }
  throw new Error("expected a failure")
}

describe.skipIf(!testDatabaseUrl())("bounded database work on Postgres", () => {
  let h: ConsoleHarness
  let profileId: string
  let locker: pg.Client

  beforeAll(async () => {
    h = await createConsoleHarness({ driver: "postgres", limits: LIMITS })
    profileId = (await h.upstream.listProfiles()).items[0]!.id
    const pool = (h.db as unknown as { $client: pg.Pool }).$client
    locker = new pg.Client({ connectionString: (pool.options as { connectionString: string }).connectionString })
    await locker.connect()
  }, 120_000)
  afterAll(async () => {
    await locker?.end().catch(() => undefined)
    await h?.close()
  }, 60_000)

  const conversion = (refId: string) => ({ profile_id: profileId, amount: "3.00", source_asset: "USD" as const, target_asset: "USDP" as const, ref_id: refId })
  const conversionsWithRef = async (refId: string) => (await h.upstream.listConversions({ ref_id: refId })).items

  it("a create whose intent cannot be written behind a locked table is refused with 503 database_unavailable and Retry-After, nothing sent; it goes through once the lock is gone", async () => {
    const refId = randomUUID()
    await locker.query("begin")
    await locker.query("lock table console_intents in access exclusive mode")
    try {
      const error = await failureOf(submitConversion(h, trader, conversion(refId)))
      expect(isDatabaseUnavailable(error)).toBe(true)
      expect(await answerTo(error)).toEqual({ status: 503, code: "database_unavailable", retryAfter: "2" })
      expect(await conversionsWithRef(refId)).toHaveLength(0)
    } finally {
      await locker.query("rollback")
    }
    const placed = await submitConversion(h, trader, conversion(refId))
    expect(placed.kind).toBe("placed")
    expect(await conversionsWithRef(refId)).toHaveLength(1)
  }, 60_000)

  it("creates queued behind one another for the same staff member's lock are each refused within the transaction's budget, not a lock timeout per statement", async () => {
    // Issue 34's replay: the second create waited for the first's staff lock (just under
    // the lock timeout), then for the table (the lock timeout again): twice the bound.
    let refIds: string[] = []
    await locker.query("begin")
    await locker.query("lock table console_intents in access exclusive mode")
    try {
      const started = performance.now()
      const answers = await Promise.all(
        [randomUUID(), randomUUID(), randomUUID()].map(async (refId) => {
          const error = await failureOf(submitConversion(h, trader, conversion(refId)))
          return { refId, ms: performance.now() - started, answer: await answerTo(error) }
        }),
      )
      for (const { ms, answer } of answers) {
        expect(answer).toEqual({ status: 503, code: "database_unavailable", retryAfter: "2" })
        expect(ms).toBeLessThan(LIMITS.transactionTimeoutMs + 400)
      }
      for (const { refId } of answers) expect(await conversionsWithRef(refId)).toHaveLength(0)
      refIds = answers.map((a) => a.refId)
    } finally {
      await locker.query("rollback")
    }
    // Rolled back: no intent under any of them, so each may be sent again.
    const [left] = await queryRows<{ n: number }>(h.db, sql`select count(*)::int as n from console_intents where ref_id in (${sql.join(refIds, sql`, `)})`)
    expect(left?.n).toBe(0)
  }, 60_000)

  it("readiness's database check fails while console_intents is locked (select 1 would not), and passes once it is free", async () => {
    await expect(intentsWritable(h.db, 200)).resolves.toBeUndefined()
    await expect(h.db.execute(sql`select 1`)).resolves.toBeDefined()
    await locker.query("begin")
    await locker.query("lock table console_intents in access exclusive mode")
    try {
      // What the old check did still answers: the lock is on one table.
      await expect(h.db.execute(sql`select 1`)).resolves.toBeDefined()
      const error = await failureOf(intentsWritable(h.db, 200))
      expect(isDatabaseUnavailable(error)).toBe(true)
    } finally {
      await locker.query("rollback")
    }
    await expect(intentsWritable(h.db, 200)).resolves.toBeUndefined()
  }, 60_000)

  it("a request that finds every pooled connection taken is refused with 503 once the connect timeout passes, and the pool serves again when one is free", async () => {
    const pool = (h.db as unknown as { $client: pg.Pool }).$client
    const held = await Promise.all(Array.from({ length: LIMITS.poolMax }, () => pool.connect()))
    try {
      const error = await failureOf(h.db.execute(sql`select 1`))
      expect(isDatabaseUnavailable(error)).toBe(true)
      expect((await answerTo(error)).status).toBe(503)
    } finally {
      for (const client of held) client.release()
    }
    await expect(h.db.execute(sql`select 1`)).resolves.toBeDefined()
  }, 60_000)

  it("a create on a pool with no free connection, after a session check that already waited, is refused within its one request deadline (503, Retry-After), nothing sent", async () => {
    const pool = (h.db as unknown as { $client: pg.Pool }).$client
    const refId = randomUUID()
    const held = await Promise.all(Array.from({ length: LIMITS.poolMax }, () => pool.connect()))
    const started = performance.now()
    let error: unknown
    try {
      // As withStaff runs a write: the session's read, then the admission, under one deadline.
      error = await failureOf(
        withDatabaseDeadline(LIMITS.transactionTimeoutMs, async () => {
          await h.db.execute(sql`select 1`).catch(() => undefined)
          return submitConversion(h, trader, conversion(refId))
        }),
      )
    } finally {
      for (const client of held) client.release()
    }
    // One wait each would be the connect timeout and then the transaction's budget: 1.8 s.
    expect(performance.now() - started).toBeLessThan(LIMITS.transactionTimeoutMs + 500)
    expect(await answerTo(error)).toMatchObject({ status: 503, code: "database_unavailable", retryAfter: "2" })
    expect(await conversionsWithRef(refId)).toEqual([])
  }, 60_000)

  it("a statement past the statement timeout is cancelled by the server and answered 503", async () => {
    const error = await failureOf(h.db.execute(sql`select pg_sleep(10)`))
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect((await answerTo(error)).code).toBe("database_unavailable")
  }, 60_000)

  it("a server that refuses connections is unavailable, not a failure of the console", async () => {
    const refused = await openDatabase({ url: "postgres://postgres@127.0.0.1:1/none", limits: LIMITS })
    const error = await failureOf(refused.migrate())
    await refused.close()
    expect(isDatabaseUnavailable(error)).toBe(true)
    expect(await answerTo(error)).toMatchObject({ status: 503, code: "database_unavailable" })
  }, 60_000)
})

describe("what counts as the database being unavailable", () => {
  it("a failure of the work itself is not: a unique violation, a syntax error, a plain error", () => {
    expect(isDatabaseUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false)
    expect(isDatabaseUnavailable(Object.assign(new Error("syntax"), { code: "42601" }))).toBe(false)
    expect(isDatabaseUnavailable(new Error("connect ECONNREFUSED in a message only"))).toBe(false)
  })
  it("a timeout or refusal is, also wrapped as a cause (as drizzle wraps the driver's errors)", () => {
    const lock = Object.assign(new Error("canceling statement due to lock timeout"), { code: "55P03" })
    expect(isDatabaseUnavailable(new Error("Failed query", { cause: lock }))).toBe(true)
    expect(isDatabaseUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true)
    expect(isDatabaseUnavailable(Object.assign(new Error("refused"), { code: "ECONNREFUSED" }))).toBe(true)
  })
})

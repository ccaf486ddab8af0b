import "server-only"
import { readFileSync } from "node:fs"
import path from "node:path"
import { sql } from "drizzle-orm"
import { database } from "@/lib/console/database"
import { consoleRuntime } from "@/lib/console/runtime"
import { shuttingDown } from "@/lib/console/draining"
import { type Db, MIGRATIONS_FOLDER } from "@/lib/db/client"
import { queryRows } from "@/lib/db/rows"
import { withinOrNull } from "@/lib/within"

/**
 * Readiness (GET /api/health/ready): whether this instance should be sent traffic. Each
 * check has its own deadline and they run side by side, so the answer comes within
 * READY_DEADLINE_MS whatever hangs; a check that does not answer in time has failed.
 */
export const READY_DEADLINE_MS = 2500

export type CheckResult = "ok" | "failed" | "timeout"

export interface Readiness {
  ready: boolean
  checks: { database: CheckResult; migrations: CheckResult; upstream_token: CheckResult; leases: CheckResult }
  /** This instance is shutting down: no new work, whatever the checks say. */
  shutting_down: boolean
  /**
   * Said, never counted against readiness: the event reader is shared by every instance, so
   * its falling behind (no successful read for EVENTS_STALE_MS) would take them all out of
   * rotation at once, while each still serves everything but the events' news. `/api/health`
   * says `degraded` for it instead.
   */
  events: "ok" | "behind" | "off" | "unknown"
}

/** The `when` of the newest migration this build carries (drizzle records it as created_at). */
let newestMigration: number | undefined
function newestMigrationWhen(): number {
  if (newestMigration === undefined) {
    const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: { when: number }[] }
    newestMigration = Math.max(...journal.entries.map((entry) => entry.when))
  }
  return newestMigration
}

/**
 * The database check: not just `select 1`, which a locked table does not stop, but whether
 * an intent could be written now (the table lock every insert takes), waiting at most
 * `waitMs` for it. Throws when it cannot.
 */
export async function intentsWritable(db: Db, waitMs = 1000): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql.raw(`set local lock_timeout = '${Math.trunc(waitMs)}ms'`))
    await tx.execute(sql`lock table console_intents in row exclusive mode`)
  })
}

async function check(work: () => Promise<boolean>, failure: string): Promise<CheckResult> {
  let failed = false
  const answer = await withinOrNull(
    () =>
      work().catch((error: unknown) => {
        failed = true
        throw error
      }),
    READY_DEADLINE_MS,
    failure,
  )
  if (answer === true) return "ok"
  return failed || answer === false ? "failed" : "timeout"
}

export async function readiness(): Promise<Readiness> {
  const [db, migrations, token, leases, events] = await Promise.all([
    check(async () => {
      await intentsWritable((await database()).db)
      return true
    }, "health.database_failed"),
    check(async () => {
      const { db } = await database()
      const [row] = await queryRows<{ newest: string | number | null }>(db, sql`select max(created_at) as newest from drizzle.__drizzle_migrations`)
      return Number(row?.newest ?? 0) >= newestMigrationWhen()
    }, "health.migrations_failed"),
    check(async () => {
      await (await consoleRuntime()).upstream.ensureToken()
      return true
    }, "health.token_failed"),
    check(async () => {
      const { quotes, limiter } = await consoleRuntime()
      // The quotes lease and the shared rate limits both live in the database: an instance
      // that has fallen back to its own is serving, but not as one of the others.
      return !quotes.status().local && limiter.status().mode !== "local"
    }, "health.leases_failed"),
    eventsAdvisory(),
  ])
  const checks = { database: db, migrations, upstream_token: token, leases }
  const down = shuttingDown()
  return { ready: !down && Object.values(checks).every((c) => c === "ok"), checks, shutting_down: down, events }
}

async function eventsAdvisory(): Promise<Readiness["events"]> {
  const answer = await withinOrNull(
    async () => {
      const { events } = await consoleRuntime()
      if (!events) return "off" as const
      await events.refreshLag()
      return events.status().behind ? ("behind" as const) : ("ok" as const)
    },
    READY_DEADLINE_MS,
    "health.events_failed",
  )
  return answer ?? "unknown"
}

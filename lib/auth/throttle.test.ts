import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ADDRESS_FAILURES, clearSignInFailures, recordSignInFailure, signInRefusal } from "@/lib/auth/throttle"
import type { Database } from "@/lib/db/client"
import { consoleAuthEvents, consoleSignInThrottle } from "@/lib/db/schema"
import { createTestDatabase, testDrivers } from "@/test/db"

process.env.LOG_LEVEL = "silent"

const MINUTE = 60_000

describe.each(testDrivers())("sign-in throttling (%s)", (driver) => {
  let database: Database
  beforeAll(async () => {
    database = await createTestDatabase(driver)
  }, 60_000)
  afterAll(async () => {
    await database?.close()
  })

  it("locks an email after 5 failures for 1 minute, then 2, 4, 8 and at most 15; the right password included", async () => {
    const db = database.db
    const who = { email: "trader@example.com", knownEmail: true, address: "10.0.0.1" }
    let now = new Date("2026-01-01T10:00:00Z")
    for (let i = 1; i <= 4; i++) {
      expect(await signInRefusal(db, who, now)).toBeNull()
      expect((await recordSignInFailure(db, who, now)).lockedUntil).toBeNull()
      now = new Date(now.getTime() + 1000)
    }
    const fifth = await recordSignInFailure(db, who, now)
    expect(fifth.lockedUntil?.getTime()).toBe(now.getTime() + MINUTE)
    // Refused before any password is looked at, whoever asks for this email.
    expect(await signInRefusal(db, { ...who, address: "10.9.9.9" }, new Date(now.getTime() + 59_000))).toEqual({ kind: "locked", until: fifth.lockedUntil })

    const lengths: number[] = []
    for (let i = 0; i < 6; i++) {
      const until = (await signInRefusal(db, who, now)) as { until: Date }
      now = new Date(until.until.getTime() + 1)
      expect(await signInRefusal(db, who, now)).toBeNull()
      const next = await recordSignInFailure(db, who, now)
      lengths.push((next.lockedUntil!.getTime() - now.getTime()) / MINUTE)
    }
    expect(lengths).toEqual([2, 4, 8, 15, 15, 15])

    const events = (await db.select().from(consoleAuthEvents)).map((e) => e.kind)
    expect(events.filter((k) => k === "locked_out")).toHaveLength(7)
    expect(events.filter((k) => k === "lockout_ended")).toHaveLength(6)
    expect(events.filter((k) => k === "sign_in_failed")).toHaveLength(11)

    // A success clears the email's record.
    await clearSignInFailures(db, who.email)
    expect(await signInRefusal(db, who, new Date(now.getTime() + 20 * MINUTE))).toBeNull()
  })

  it("forgets failures 15 minutes apart: a slow typo never locks anyone out", async () => {
    const who = { email: "support@example.com", knownEmail: true, address: null }
    let now = new Date("2026-01-02T10:00:00Z")
    for (let i = 0; i < 10; i++) {
      expect((await recordSignInFailure(database.db, who, now)).lockedUntil).toBeNull()
      now = new Date(now.getTime() + 16 * MINUTE)
    }
  })

  it("answers an address with more than 30 failures in 10 minutes 429, whatever the email, until the window is over", async () => {
    const now = new Date("2026-01-03T10:00:00Z")
    for (let i = 0; i < ADDRESS_FAILURES; i++) {
      const who = { email: `guess-${i}@example.com`, knownEmail: false, address: "203.0.113.7" }
      expect(await signInRefusal(database.db, who, now)).toBeNull()
      await recordSignInFailure(database.db, who, now)
    }
    const next = { email: "viewer@example.com", knownEmail: true, address: "203.0.113.7" }
    expect(await signInRefusal(database.db, next, new Date(now.getTime() + 1000))).toEqual({ kind: "address", retryAfterS: 599 })
    expect(await signInRefusal(database.db, { ...next, address: "203.0.113.8" }, now)).toBeNull()
    expect(await signInRefusal(database.db, next, new Date(now.getTime() + 10 * MINUTE))).toBeNull()
  })

  it("never stores an email no staff has: the throttle keeps a hash, the audit trail no email", async () => {
    const typed = "correct horse battery staple"
    await recordSignInFailure(database.db, { email: typed, knownEmail: false, address: "10.1.1.1" }, new Date())
    const rows = JSON.stringify([...(await database.db.select().from(consoleSignInThrottle)), ...(await database.db.select().from(consoleAuthEvents))])
    expect(rows).not.toContain("horse")
  })
})

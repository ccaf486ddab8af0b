import "server-only"
import { createHash } from "node:crypto"
import { and, eq, inArray, isNotNull, lte, sql } from "drizzle-orm"
import { recordAuthEvent } from "@/lib/auth/sessions"
import type { Db } from "@/lib/db/client"
import { consoleSignInThrottle } from "@/lib/db/schema"

/** Failures for one email, within EMAIL_WINDOW_MS of each other, that lock it out. */
export const EMAIL_FAILURES = 5
export const EMAIL_WINDOW_MS = 15 * 60_000
/** The first lockout; each next one doubles, up to LOCK_MAX_MS. */
export const LOCK_BASE_MS = 60_000
export const LOCK_MAX_MS = 15 * 60_000
/** Failures from one address within ADDRESS_WINDOW_MS after which it is answered 429. */
export const ADDRESS_FAILURES = 30
export const ADDRESS_WINDOW_MS = 10 * 60_000

export type SignInRefusal = { kind: "locked"; until: Date } | { kind: "address"; retryAfterS: number }

/** The email is kept as a hash: what someone typed into the field is never stored. */
function emailKey(email: string): string {
  return `email:${createHash("sha256").update(email.trim().toLowerCase()).digest("hex")}`
}

function addressKey(address: string): string {
  return `address:${address}`
}

const ts = (date: Date) => sql`${date.toISOString()}::timestamptz`

/**
 * Whether a sign-in may be tried at all (checked before any password work): an address
 * past its failure budget, or an email in its lockout, is refused. A lockout found over
 * is recorded as ended.
 */
export async function signInRefusal(
  db: Db,
  who: { email: string; knownEmail: boolean; address: string | null },
  now = new Date(),
): Promise<SignInRefusal | null> {
  const keys = [emailKey(who.email), ...(who.address ? [addressKey(who.address)] : [])]
  const rows = await db.select().from(consoleSignInThrottle).where(inArray(consoleSignInThrottle.key, keys))
  const byKey = new Map(rows.map((row) => [row.key, row]))
  const address = who.address ? byKey.get(addressKey(who.address)) : undefined
  if (address && address.failures >= ADDRESS_FAILURES && now.getTime() - address.windowStartedAt.getTime() < ADDRESS_WINDOW_MS) {
    const retryAfterS = Math.max(1, Math.ceil((address.windowStartedAt.getTime() + ADDRESS_WINDOW_MS - now.getTime()) / 1000))
    return { kind: "address", retryAfterS }
  }
  const email = byKey.get(emailKey(who.email))
  if (email?.lockedUntil) {
    if (email.lockedUntil.getTime() > now.getTime()) return { kind: "locked", until: email.lockedUntil }
    const ended = await db
      .update(consoleSignInThrottle)
      // The lockout's end counts as the last failure: the doubling carries on from there
      // rather than the lockout's own length counting as quiet time.
      .set({ lockedUntil: null, lastFailureAt: email.lockedUntil })
      .where(and(eq(consoleSignInThrottle.key, email.key), isNotNull(consoleSignInThrottle.lockedUntil), lte(consoleSignInThrottle.lockedUntil, now)))
      .returning({ key: consoleSignInThrottle.key })
    if (ended.length > 0) {
      await recordAuthEvent(db, { kind: "lockout_ended", email: who.knownEmail ? who.email : null, address: who.address })
    }
  }
  return null
}

/**
 * Counts a failed sign-in against the email and the address (one statement each, so
 * instances racing on the same key count every failure). Returns the lockout it caused.
 */
export async function recordSignInFailure(
  db: Db,
  who: { email: string; knownEmail: boolean; address: string | null; reason?: string; detail?: Record<string, unknown> },
  now = new Date(),
): Promise<{ lockedUntil: Date | null }> {
  const t = consoleSignInThrottle
  const stale = sql`${t.lastFailureAt} <= ${ts(new Date(now.getTime() - EMAIL_WINDOW_MS))}`
  const failures = sql`(case when ${stale} then 1 else ${t.failures} + 1 end)`
  const lockouts = sql`(case when ${stale} then 0 else ${t.lockouts} end)`
  const lockFor = sql`least(${LOCK_MAX_MS}::bigint, ${LOCK_BASE_MS}::bigint * (2 ^ ${lockouts})::bigint) * interval '1 millisecond'`
  const [row] = await db
    .insert(t)
    .values({ key: emailKey(who.email), failures: 1, windowStartedAt: now, lastFailureAt: now, lockouts: 0 })
    .onConflictDoUpdate({
      target: t.key,
      set: {
        failures: sql`${failures}`,
        windowStartedAt: sql`case when ${stale} then ${ts(now)} else ${t.windowStartedAt} end`,
        lastFailureAt: ts(now),
        lockedUntil: sql`case when ${failures} >= ${EMAIL_FAILURES} then ${ts(now)} + ${lockFor} when ${stale} then null else ${t.lockedUntil} end`,
        lockouts: sql`case when ${failures} >= ${EMAIL_FAILURES} then ${lockouts} + 1 else ${lockouts} end`,
      },
    })
    .returning({ lockedUntil: t.lockedUntil, failures: t.failures })
  if (who.address) {
    const windowOver = sql`${t.windowStartedAt} <= ${ts(new Date(now.getTime() - ADDRESS_WINDOW_MS))}`
    await db
      .insert(t)
      .values({ key: addressKey(who.address), failures: 1, windowStartedAt: now, lastFailureAt: now })
      .onConflictDoUpdate({
        target: t.key,
        set: {
          failures: sql`case when ${windowOver} then 1 else ${t.failures} + 1 end`,
          windowStartedAt: sql`case when ${windowOver} then ${ts(now)} else ${t.windowStartedAt} end`,
          lastFailureAt: ts(now),
        },
      })
  }
  const email = who.knownEmail ? who.email : null
  await recordAuthEvent(db, { kind: "sign_in_failed", email, address: who.address, detail: { reason: who.reason ?? (who.knownEmail ? "wrong password" : "not a staff email"), ...who.detail } })
  // A fresh lockout is one whose time was set by this very failure.
  const lockedUntil = row?.lockedUntil && row.lockedUntil.getTime() > now.getTime() && (row.failures ?? 0) >= EMAIL_FAILURES ? row.lockedUntil : null
  if (lockedUntil) await recordAuthEvent(db, { kind: "locked_out", email, address: who.address, detail: { until: lockedUntil.toISOString() } })
  return { lockedUntil }
}

/** A successful sign-in clears the email's failures and back-off. */
export async function clearSignInFailures(db: Db, email: string): Promise<void> {
  await db.delete(consoleSignInThrottle).where(eq(consoleSignInThrottle.key, emailKey(email)))
}

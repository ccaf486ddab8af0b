import "server-only"
import { eq, inArray, sql } from "drizzle-orm"
import { DEMO_USERS } from "@/lib/auth/demo-users"
import { type Role, isRole } from "@/lib/auth/roles"
import { staffRef } from "@/lib/auth/staff-ref"
import type { Db } from "@/lib/db/client"
import { type ConsoleStaffRow, type StaffSource, consoleStaff, consoleStaffSeeded, consoleStaffSettings } from "@/lib/db/schema"
import { env } from "@/lib/env"
import { log } from "@/lib/log"

/**
 * The staff table's bootstrap and look-ups (lib/auth/staff.ts has the changes):
 * CONSOLE_USERS and, in sandbox mode, the demo users are created in `console_staff` once
 * each, the first time the console starts with them, and never again, so a change or a
 * removal made in the console stands across restarts.
 */

interface Seed {
  email: string
  role: Role
  source: StaffSource
  passwordHash: string | null
}

function seeds(): Seed[] {
  const config = env()
  const list: Seed[] = config.consoleUsers.map((u) => ({ email: u.email.toLowerCase(), role: u.role, source: "bootstrap", passwordHash: u.passwordHash }))
  if (config.mode === "sandbox") {
    for (const demo of DEMO_USERS) if (!list.some((s) => s.email === demo.email)) list.push({ email: demo.email, role: demo.role, source: "demo", passwordHash: null })
  }
  return list
}

const bootstrapped = ((globalThis as unknown as { __consoleStaffBootstrap?: WeakMap<object, Map<string, Promise<void>>> }).__consoleStaffBootstrap ??= new WeakMap())

/**
 * Creates the bootstrap's staff that were never created before (once per database and
 * configuration per process; every instance may run it: the inserts are conditional).
 */
export function ensureStaffBootstrap(db: Db): Promise<void> {
  const list = seeds()
  const key = JSON.stringify(list.map((s) => [s.email, s.role, s.source]))
  let byKey = bootstrapped.get(db)
  if (!byKey) bootstrapped.set(db, (byKey = new Map<string, Promise<void>>()))
  let done = byKey.get(key)
  if (!done) {
    done = seed(db, list).catch((error: unknown) => {
      byKey.delete(key)
      throw error
    })
    byKey.set(key, done)
  }
  return done
}

async function seed(db: Db, list: Seed[]): Promise<void> {
  for (const s of list) {
    // Seeded once: a person removed in the console is not brought back by the next start.
    const rows = await db.execute<{ email: string }>(sql`
      with seeded as (
        insert into ${consoleStaffSeeded} (email) values (${s.email}) on conflict do nothing returning email
      )
      insert into ${consoleStaff} (email, role, status, source, password_hash, updated_by)
      select email, ${s.role}, 'active', ${s.source}, ${s.passwordHash}, 'bootstrap' from seeded
      on conflict (email) do nothing
      returning email`)
    if (rowsOf(rows).length > 0) log.info("staff.bootstrapped", { who: staffRef(s.email), role: s.role, source: s.source })
  }
}

function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[]
  return (result as { rows?: T[] }).rows ?? []
}

// ---- Look-ups for the sign-in paths ---------------------------------------------------

export async function staffRow(db: Db, email: string): Promise<ConsoleStaffRow | null> {
  await ensureStaffBootstrap(db)
  const [row] = await db.select().from(consoleStaff).where(eq(consoleStaff.email, email.trim().toLowerCase())).limit(1)
  return row ?? null
}

/** The role someone may act with now: their row's, when it is active; else null. */
export function activeRole(row: Pick<ConsoleStaffRow, "role" | "status" | "source"> | null | undefined): Role | null {
  // The demo users exist in sandbox mode only, even on a database that once ran one.
  if (row?.source === "demo" && env().mode !== "sandbox") return null
  return row?.status === "active" && isRole(row.role) ? row.role : null
}

/** The roles that must sign in with a passkey (their passwords are refused). */
export async function passkeyRoles(db: Db): Promise<Role[]> {
  const [row] = await db.select({ roles: consoleStaffSettings.passkeyRoles }).from(consoleStaffSettings).where(eq(consoleStaffSettings.id, 1)).limit(1)
  return (row?.roles ?? []).filter(isRole)
}


/** The active role of each email on the staff table, and whether single sign-on made the row (an email absent from the map is not on it). */
export async function activeRoles(db: Db, emails: readonly string[]): Promise<Map<string, { role: Role | null; sso: boolean }>> {
  await ensureStaffBootstrap(db)
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()))]
  const roles = new Map<string, { role: Role | null; sso: boolean }>()
  if (wanted.length === 0) return roles
  const rows = await db
    .select({ email: consoleStaff.email, role: consoleStaff.role, status: consoleStaff.status, source: consoleStaff.source })
    .from(consoleStaff)
    .where(inArray(consoleStaff.email, wanted))
  for (const row of rows) roles.set(row.email, { role: activeRole(row), sso: row.source === "sso" })
  return roles
}

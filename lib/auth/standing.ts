import "server-only"
import { and, desc, inArray, sql } from "drizzle-orm"
import { directoryRole } from "@/lib/auth/directory"
import { OIDC_PROVIDER_ID } from "@/lib/auth/oidc"
import { type Role, isRole } from "@/lib/auth/roles"
import type { Db } from "@/lib/db/client"
import { consoleAuthEvents } from "@/lib/db/schema"

// On globalThis: the build gives route handlers their own copies of a module.
const standing = ((globalThis as unknown as { __consoleStanding?: { version: number } }).__consoleStanding ??= { version: 0 })

/** Someone's standing may have changed (a sign-in, a refused one, a session ended): the next sweep of lapsed makers must not wait. */
export function standingChanged(): void {
  standing.version++
}

/** Changes with every `standingChanged` in this process. */
export function standingVersion(): number {
  return standing.version
}

/** The staff directory as configured: an email's role, or null for someone it does not list. */
export type Directory = (email: string) => Role | null

/**
 * The role each staff member has now, as far as the console can know it, or null for
 * someone who no longer has access. The directory (CONSOLE_USERS, the demo users in
 * sandbox mode) decides for everyone it lists. Anyone else signs in through single sign-on,
 * whose provider the console cannot ask later: their role is the one their latest
 * single sign-on gave, and none when the provider refused their latest attempt (no role
 * any more, an unknown one). Someone known to neither has none.
 */
export async function currentRoles(db: Db, emails: readonly string[], directory: Directory = directoryRole): Promise<Map<string, Role | null>> {
  const roles = new Map<string, Role | null>()
  const unlisted: string[] = []
  for (const email of new Set(emails.map((e) => e.toLowerCase()))) {
    const role = directory(email)
    roles.set(email, role)
    if (role === null) unlisted.push(email)
  }
  if (unlisted.length === 0) return roles
  const email = sql<string>`lower(${consoleAuthEvents.email})`
  const latest = await db
    .selectDistinctOn([email], { email, kind: consoleAuthEvents.kind, detail: consoleAuthEvents.detail })
    .from(consoleAuthEvents)
    .where(
      and(
        inArray(email, unlisted),
        inArray(consoleAuthEvents.kind, ["signed_in", "sign_in_failed"]),
        sql`${consoleAuthEvents.detail}->>'provider' = ${OIDC_PROVIDER_ID}`,
      ),
    )
    .orderBy(email, desc(consoleAuthEvents.at), desc(consoleAuthEvents.id))
  for (const row of latest) {
    const role = row.detail?.role
    roles.set(row.email, row.kind === "signed_in" && isRole(role) ? role : null)
  }
  return roles
}

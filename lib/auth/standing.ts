import "server-only"
import { and, desc, eq, inArray, or, sql } from "drizzle-orm"
import { OIDC_PROVIDER_ID } from "@/lib/auth/oidc"
import { type Role, isRole } from "@/lib/auth/roles"
import { activeRoles } from "@/lib/auth/staff-bootstrap"
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

/** A staff directory for tests: an email's role, or null for someone it does not list. */
export type Directory = (email: string) => Role | null

/**
 * The role each staff member has now, as far as the console can know it, or null for
 * someone who no longer has access. The staff table (console_staff) decides for everyone
 * on it: their role while active, none when invited or disabled. Someone not on it (a
 * single sign-on user from before the table, or one removed since) has the role their
 * latest single sign-on gave, and none when the provider refused their latest attempt or
 * an admin removed them after it. A row made by single sign-on loses its role too when the
 * provider refused that person's latest attempt (the provider no longer gives them one).
 * Someone known to neither has none. `directory` stands in for the table in tests.
 */
export async function currentRoles(db: Db, emails: readonly string[], directory?: Directory): Promise<Map<string, Role | null>> {
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()))]
  const listed = directory
    ? new Map(
        wanted.flatMap((e) => {
          // Asked once per person: a test's stand-in may answer differently from one look-up to the next.
          const role = directory(e)
          return role === null ? [] : [[e, { role, sso: false }] as const]
        }),
      )
    : await activeRoles(db, wanted)
  const roles = new Map<string, Role | null>()
  const unlisted: string[] = []
  const ssoRows = new Set<string>()
  for (const email of wanted) {
    const entry = listed.get(email)
    roles.set(email, entry?.role ?? null)
    if (!entry) unlisted.push(email)
    else if (entry.sso && entry.role) ssoRows.add(email)
  }
  if (unlisted.length === 0 && ssoRows.size === 0) return roles
  const email = sql<string>`lower(${consoleAuthEvents.email})`
  const latest = await db
    .selectDistinctOn([email], { email, kind: consoleAuthEvents.kind, detail: consoleAuthEvents.detail })
    .from(consoleAuthEvents)
    .where(
      and(
        inArray(email, [...unlisted, ...ssoRows]),
        or(
          and(inArray(consoleAuthEvents.kind, ["signed_in", "sign_in_failed"]), sql`${consoleAuthEvents.detail}->>'provider' = ${OIDC_PROVIDER_ID}`),
          eq(consoleAuthEvents.kind, "staff_removed"),
        ),
      ),
    )
    .orderBy(email, desc(consoleAuthEvents.at), desc(consoleAuthEvents.seq))
  for (const row of latest) {
    if (ssoRows.has(row.email)) {
      if (row.kind === "sign_in_failed") roles.set(row.email, null)
      continue
    }
    const role = row.detail?.role
    roles.set(row.email, row.kind === "signed_in" && isRole(role) ? role : null)
  }
  return roles
}

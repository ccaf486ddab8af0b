import "server-only"
import { eq } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { recordAuthEvent } from "@/lib/auth/sessions"
import { type StepUp, checkStepUp, digestOf } from "@/lib/console/approvals/step-up"
import { outcomeOf } from "@/lib/console/approvals/decision-trail"
import type { Db } from "@/lib/db/client"
import { consoleSessions } from "@/lib/db/schema"

/**
 * Ending someone else's session is step-up's too (STEP_UP=webauthn): the assertion's
 * challenge is bound to the digest of exactly that — the action, the session's id and
 * whose it is. Ending one's own needs none. A refused attempt (step-up asked or refused)
 * is on the sign-in events with its code, and the session stays.
 */
export async function steppedUpToEnd(db: Db, staff: Staff, sessionId: string, stepUp: StepUp, now = new Date()): Promise<void> {
  const [row] = await db.select({ email: consoleSessions.staffEmail }).from(consoleSessions).where(eq(consoleSessions.id, sessionId)).limit(1)
  // No such session: the caller answers 404 as before; one's own: no step-up.
  if (!row || row.email.toLowerCase() === staff.email.toLowerCase()) return
  const what = { action: "end_session", session_id: sessionId, staff_email: row.email.toLowerCase() }
  try {
    await checkStepUp(db, staff, { what, digest: digestOf(what) }, stepUp, now)
  } catch (error) {
    await recordAuthEvent(db, { kind: "session_end_refused", email: row.email, actor: staff.email, sessionId, detail: { code: outcomeOf(error) } })
    throw error
  }
}

import "server-only"
import { asc, eq, or } from "drizzle-orm"
import { approvalDecision } from "@/lib/console/approvals/reads"
import { intentEntry } from "@/lib/console/audit"
import type { Db } from "@/lib/db/client"
import { type ConsoleApproval, type ConsoleIntent, consoleApprovals, consoleIntents } from "@/lib/db/schema"
import { notFound } from "@/lib/problem"
import { isUuid } from "@/lib/schemas/common"
import type { IntentStory } from "@/lib/schemas/search"

/** An intent and its approval (if it waited for one) as the pages show them. */
export function toIntentStory(intent: ConsoleIntent, approval: ConsoleApproval | null): IntentStory {
  const decision = { approver: approval?.checkerEmail ?? null, approval: approval?.state ?? null }
  return { ...intentEntry(intent, undefined, decision), approval: approval ? { state: approval.state, ...approvalDecision(approval) } : null }
}

function withApprovals(db: Db) {
  return db
    .select({ intent: consoleIntents, approval: consoleApprovals })
    .from(consoleIntents)
    .leftJoin(consoleApprovals, eq(consoleApprovals.intentId, consoleIntents.id))
}

/** GET /api/intents/{id}: one intent, or a 404 naming it. */
export async function getIntentStory(db: Db, id: string): Promise<IntentStory> {
  const missing = () => notFound(`No console intent has the id “${id}”.`)
  if (!isUuid(id)) throw missing()
  const [row] = await withApprovals(db).where(eq(consoleIntents.id, id)).limit(1)
  if (!row) throw missing()
  return toIntentStory(row.intent, row.approval)
}

/**
 * The intents behind one record, oldest first: the create that placed it (record_id) and
 * any cancel the console sent for it (target_id). Empty when the console did not place it.
 */
export async function recordIntentStories(db: Db, recordId: string): Promise<IntentStory[]> {
  const rows = await withApprovals(db)
    .where(or(eq(consoleIntents.recordId, recordId), eq(consoleIntents.targetId, recordId)))
    .orderBy(asc(consoleIntents.createdAt), asc(consoleIntents.seq))
    .limit(20)
  return rows.map((r) => toIntentStory(r.intent, r.approval))
}

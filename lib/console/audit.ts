import "server-only"
import { type SQL, and, desc, eq, gte, lt, sql } from "drizzle-orm"
import { z } from "zod"
import type { Db } from "@/lib/db/client"
import { throughMillisecond } from "@/lib/db/time"
import { type ConsoleIntent, INTENT_OPERATIONS, INTENT_STATES, consoleApprovals, consoleIntents } from "@/lib/db/schema"
import type { AuditEntry, AuditPage } from "@/lib/schemas/audit"
import { dateTimeFilterSchema, limitSchema, pageCursorSchema } from "@/lib/schemas/paging"

export const auditQuerySchema = z.strictObject({
  staff: z.string().trim().max(200, "at most 200 characters").optional(),
  operation: z.enum(INTENT_OPERATIONS, { error: `must be one of ${INTENT_OPERATIONS.join(", ")}` }).optional(),
  state: z.enum(INTENT_STATES, { error: `must be one of ${INTENT_STATES.join(", ")}` }).optional(),
  from: dateTimeFilterSchema.optional(),
  to: dateTimeFilterSchema.optional(),
  limit: limitSchema(500).default(50),
  page_cursor: pageCursorSchema.optional(),
})
export type AuditQuery = z.infer<typeof auditQuerySchema>

// The last entry's time and write order (`seq`: entries written in one millisecond keep it).
const cursorSchema = z.object({ t: z.string().regex(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/), s: z.string().regex(/^\d{1,19}$/) })

function encodeCursor(t: string, s: number): string {
  return Buffer.from(JSON.stringify({ t, s: String(s) })).toString("base64url")
}

function decodeCursor(cursor: string): { t: string; s: string } {
  try {
    return cursorSchema.parse(JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")))
  } catch {
    throw new z.ZodError([{ code: "custom", path: ["page_cursor"], message: "is not a cursor this console issued", input: cursor }])
  }
}

// Full microsecond precision, so paging never skips or repeats rows created in one millisecond.
const createdAtText = sql<string>`to_char(${consoleIntents.createdAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`

/** The audit trail, newest first, filtered, in pages with an opaque cursor. */
export async function listAudit(db: Db, query: AuditQuery): Promise<AuditPage> {
  const where: SQL[] = []
  if (query.staff) where.push(eq(consoleIntents.staffEmail, query.staff.toLowerCase()))
  if (query.operation) where.push(eq(consoleIntents.operation, query.operation))
  if (query.state) where.push(eq(consoleIntents.state, query.state))
  if (query.from) where.push(gte(consoleIntents.createdAt, new Date(query.from)))
  if (query.to) where.push(lt(consoleIntents.createdAt, throughMillisecond(new Date(query.to))))
  if (query.page_cursor) {
    const { t, s } = decodeCursor(query.page_cursor)
    where.push(sql`(${consoleIntents.createdAt}, ${consoleIntents.seq}) < (${t}::timestamptz, ${s}::bigint)`)
  }
  const rows = await db
    .select({ intent: consoleIntents, createdAtText, approver: consoleApprovals.checkerEmail, approval: consoleApprovals.state })
    .from(consoleIntents)
    .leftJoin(consoleApprovals, eq(consoleApprovals.intentId, consoleIntents.id))
    .where(where.length > 0 ? and(...where) : undefined)
    .orderBy(desc(consoleIntents.createdAt), desc(consoleIntents.seq))
    .limit(query.limit + 1)
  const page = rows.slice(0, query.limit)
  const last = page[page.length - 1]
  return {
    items: page.map(({ intent, createdAtText: created, approver, approval }) => intentEntry(intent, created, { approver, approval })),
    ...(rows.length > query.limit && last ? { next_page_cursor: encodeCursor(last.createdAtText, last.intent.seq) } : {}),
  }
}

/** An intent as the trail and the intent pages show it; `createdAt` to the microsecond when the database gave it. */
export function intentEntry(
  intent: ConsoleIntent,
  createdAt = intent.createdAt.toISOString(),
  decision: { approver: string | null; approval: string | null } = { approver: null, approval: null },
): AuditEntry {
  return {
    id: intent.id,
    created_at: createdAt,
    updated_at: intent.updatedAt.toISOString(),
    resolved_at: intent.resolvedAt?.toISOString() ?? null,
    staff_email: intent.staffEmail,
    staff_role: intent.staffRole,
    operation: intent.operation,
    profile_id: intent.profileId,
    // A refused create holds no ref_id of its own; the trail shows the one it was sent with.
    ref_id: intent.refId ?? (intent.state === "REFUSED" && typeof intent.request.ref_id === "string" ? intent.request.ref_id : null),
    target_id: intent.targetId,
    upstream_api: intent.upstreamApi,
    state: intent.state,
    record_id: intent.recordId,
    record_status: intent.recordStatus,
    attempts: intent.attempts,
    request: intent.request,
    problem: problemSummary(intent.problem),
    market: intent.market,
    side: intent.side,
    size: intent.sizeAmount !== null && intent.sizeCurrency !== null ? { amount: intent.sizeAmount, currency: intent.sizeCurrency } : null,
    approver: decision.approver,
    approval_state: decision.approval,
  }
}

/** An intent's stored problem as the trail shows it: title, status and detail, nothing else. */
export function problemSummary(
  problem: Record<string, unknown> | null,
): { title: string; status: number | null; detail: string | null } | null {
  if (!problem) return null
  return {
    title: typeof problem.title === "string" ? problem.title : "Error",
    status: typeof problem.status === "number" ? problem.status : null,
    detail: typeof problem.detail === "string" ? problem.detail : null,
  }
}

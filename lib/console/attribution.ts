import "server-only"
import { and, eq, inArray } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { type IntentOperation, consoleApprovals, consoleIntents } from "@/lib/db/schema"

/** Who placed a record through the console, and who approved it when a second person had to. */
export interface Attribution {
  placed_by: string | null
  approved_by: string | null
}

/** A record with who placed and approved it (null for records placed outside this console). */
export type Attributed<T> = T & Attribution

/** Who placed each of these ref_ids' creates, by ref_id: one read for a page of records. */
export async function attributionByRef(db: Db, operation: Extract<IntentOperation, "create_execution" | "create_conversion">, refIds: readonly string[]): Promise<Map<string, Attribution>> {
  const refs = [...new Set(refIds.filter((r) => r !== ""))]
  if (refs.length === 0) return new Map()
  const rows = await db
    .select({ refId: consoleIntents.refId, maker: consoleIntents.staffEmail, checker: consoleApprovals.checkerEmail, approval: consoleApprovals.state })
    .from(consoleIntents)
    .leftJoin(consoleApprovals, eq(consoleApprovals.intentId, consoleIntents.id))
    .where(and(eq(consoleIntents.operation, operation), inArray(consoleIntents.refId, refs)))
  return new Map(rows.flatMap((r) => (r.refId ? [[r.refId, { placed_by: r.maker, approved_by: r.approval === "APPROVED" ? r.checker : null }]] : [])))
}

/** A page of records with who placed and approved each. */
export async function attributed<T extends { ref_id?: string | null | undefined }, P extends { items: readonly T[] }>(
  db: Db,
  operation: Extract<IntentOperation, "create_execution" | "create_conversion">,
  page: P,
): Promise<Omit<P, "items"> & { items: Attributed<T>[] }> {
  const who = await attributionByRef(db, operation, page.items.flatMap((r) => (r.ref_id ? [r.ref_id] : [])))
  return { ...page, items: page.items.map((r) => ({ ...r, ...(who.get(r.ref_id ?? "") ?? { placed_by: null, approved_by: null }) })) }
}

import "server-only"
import { type SQL, and, asc, desc, sql } from "drizzle-orm"
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core"
import type { Db } from "@/lib/db/client"
import { badRequest } from "@/lib/sandbox/problems"

/**
 * Opaque keyset cursors: the (created_at, id) of the last item of a page and the order
 * they were read in, base64url-encoded. Decoding checks every part, so a tampered cursor
 * is a 400, never a database error.
 */
interface Cursor {
  createdAt: Date
  id: string
  order: "ASC" | "DESC"
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export function encodeCursor(cursor: Cursor): string {
  const payload = JSON.stringify({ v: 1, t: cursor.createdAt.toISOString(), i: cursor.id, o: cursor.order })
  return Buffer.from(payload, "utf8").toString("base64url")
}

export function decodeCursor(value: string, order: "ASC" | "DESC"): Cursor {
  const invalid = () => badRequest({ page_cursor: "is not a cursor from this list" })
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(value, "base64url").toString("utf8"))
  } catch {
    throw invalid()
  }
  if (!parsed || typeof parsed !== "object") throw invalid()
  const { v, t, i, o } = parsed as Record<string, unknown>
  if (v !== 1 || typeof t !== "string" || typeof i !== "string" || !UUID.test(i)) throw invalid()
  if (o !== "ASC" && o !== "DESC") throw invalid()
  if (o !== order) throw badRequest({ page_cursor: "was made for the other order" })
  const createdAt = new Date(t)
  if (Number.isNaN(createdAt.getTime())) throw invalid()
  return { createdAt, id: i, order: o }
}

/**
 * An RFC 3339 filter bound as a Date. Dates keep milliseconds; a bound with finer digits
 * is moved inward (begin up, end down) so "inclusive" never lets in a record outside it.
 */
export function timeBound(value: string, edge: "begin" | "end"): Date {
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) throw badRequest({ [`created_at.${edge}`]: "must be an RFC 3339 date-time" })
  const fraction = /\.(\d+)/.exec(value)?.[1] ?? ""
  if (edge === "begin" && /[1-9]/.test(fraction.slice(3))) return new Date(date.getTime() + 1)
  return date
}

export function isUuid(value: string): boolean {
  return UUID.test(value)
}

/** The (created_at, id) columns a list is paged by. */
interface KeysetColumns {
  createdAt: AnyPgColumn
  id: AnyPgColumn
}

/** The condition "after this cursor" in the list's order, or nothing on the first page. */
export function afterCursor(columns: KeysetColumns, pageCursor: string | undefined, order: "ASC" | "DESC"): SQL | undefined {
  if (!pageCursor) return undefined
  const cursor = decodeCursor(pageCursor, order)
  const at = cursor.createdAt.toISOString()
  return order === "DESC"
    ? sql`(${columns.createdAt}, ${columns.id}) < (${at}::timestamptz, ${cursor.id}::uuid)`
    : sql`(${columns.createdAt}, ${columns.id}) > (${at}::timestamptz, ${cursor.id}::uuid)`
}

/** ORDER BY of a keyset-paged list: created_at, then id to break ties. */
export function keysetOrder(columns: KeysetColumns, order: "ASC" | "DESC"): SQL[] {
  return order === "DESC" ? [desc(columns.createdAt), desc(columns.id)] : [asc(columns.createdAt), asc(columns.id)]
}

/**
 * One page from `limit + 1` rows read in order: the first `limit`, and a cursor after the
 * last of them when the extra row shows that more follow.
 */
export function pageOf<R extends { createdAt: Date; id: string }>(
  rows: R[],
  limit: number,
  order: "ASC" | "DESC",
): { items: R[]; next_page_cursor?: string } {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  if (rows.length > limit && last) return { items, next_page_cursor: encodeCursor({ createdAt: last.createdAt, id: last.id, order }) }
  return { items }
}

/** How a list is paged: its cursor (none on the first page), its order and its page size. */
export interface Paging {
  page_cursor?: string | undefined
  order: "ASC" | "DESC"
  limit: number
}

/** One page of `table`'s rows that match `filters`, in keyset order, after the cursor. */
export async function readPage<T extends PgTable & KeysetColumns>(db: Db, table: T, filters: SQL[], paging: Paging): Promise<{ items: T["$inferSelect"][]; next_page_cursor?: string }> {
  const { page_cursor, order, limit } = paging
  // Read as a plain table (drizzle's select types cannot follow a generic one); the rows are typed again below.
  const from: PgTable = table
  const rows = await db
    .select()
    .from(from)
    .where(and(...filters, afterCursor(table, page_cursor, order)))
    .orderBy(...keysetOrder(table, order))
    .limit(limit + 1)
  return pageOf(rows as (T["$inferSelect"] & { createdAt: Date; id: string })[], limit, order)
}

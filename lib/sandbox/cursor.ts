import "server-only"
import { badRequest } from "@/lib/sandbox/problems"

/**
 * Opaque keyset cursors: the (created_at, id) of the last item of a page and the order
 * they were read in, base64url-encoded. Decoding checks every part, so a tampered cursor
 * is a 400, never a database error.
 */
export interface Cursor {
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

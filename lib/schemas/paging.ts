import { z } from "zod"

/**
 * The pieces every list query shares, and the one paging vocabulary of the console and
 * the service: a request asks for `limit` rows after `page_cursor`; a page answers
 * `next_page_cursor` when there is more.
 */

/** An opaque cursor, exactly as a previous page's `next_page_cursor` gave it. */
export const pageCursorSchema = z.string({ error: "must be text" }).max(512, "at most 512 characters")

/** How many rows a page may hold: a whole number from 1 to `max`. */
export function limitSchema(max = 1000) {
  return z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(1, "at least 1").max(max, `at most ${max}`)
}

export const orderSchema = z.enum(["ASC", "DESC"], { error: "must be ASC or DESC" })

/** A date-time filter of a list (`created_at.begin`, `from`, …). */
export const dateTimeFilterSchema = z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time" })

/** `limit` and `page_cursor`, both optional: spread into a list query's shape. */
export const pagingShape = {
  limit: limitSchema().optional(),
  page_cursor: pageCursorSchema.optional(),
}

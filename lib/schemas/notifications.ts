import { z } from "zod"

/**
 * GET /api/notifications: what changed for the signed-in person's own placements and
 * requests since a cursor. An event's id names the record and the state it reached, so
 * the same event served twice (the cursor overlaps on purpose) is recognised as one.
 */

export const NOTIFICATION_KINDS = ["execution", "conversion", "approval"] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const notificationEventSchema = z.strictObject({
  /** `<kind>:<intent id>:<state>`: stable, one per record and final state. */
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  /** The final status (SETTLED, CANCELLED, …) or the request's decision (APPROVED, …). */
  state: z.string(),
  /** When the console learned it (RFC 3339). */
  at: z.string(),
  /** The record's id (execution or conversion), or the request's id. */
  record_id: z.string(),
  title: z.string(),
  detail: z.string(),
  /** The console page of the record or request. */
  href: z.string(),
})
export type NotificationEvent = z.infer<typeof notificationEventSchema>

export const notificationPageSchema = z.strictObject({
  events: z.array(notificationEventSchema),
  /** Pass back as `since` on the next poll. */
  cursor: z.string(),
  /** Placements whose status could not be checked this time (service failing or the bound reached); asked again next poll. */
  unchecked: z.number().int().min(0),
})
export type NotificationPage = z.infer<typeof notificationPageSchema>

export const notificationQuerySchema = z.strictObject({
  since: z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time, as the last answer's cursor" }).optional(),
})

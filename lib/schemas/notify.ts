import { z } from "zod"
import { FIAT_DECIMALS } from "@/lib/money"
import { FIAT_ASSETS } from "@/lib/schemas/assets"
import { amountSchema } from "@/lib/schemas/money"

/**
 * The outbox's notifications (lib/console/notify/): the kinds, a person's inbox, their
 * preferences, the admins' team channels and the deliveries. Shared by the routes and the pages.
 */

export const NOTIFY_KINDS = [
  "approval_waiting",
  "approval_decided",
  "passkey_added",
  "large_order",
  "outcome_unknown",
  "orchestration_failed",
  "deposit_completed",
  "statement_difference",
  "events_lagging",
] as const
export type NotifyKind = (typeof NOTIFY_KINDS)[number]

export const NOTIFY_KIND_LABELS: Record<NotifyKind, string> = {
  approval_waiting: "An approval request waits for you",
  approval_decided: "Your approval request was decided",
  passkey_added: "A passkey was added to your account",
  large_order: "An order at or over the team's large-order size (to the admins)",
  outcome_unknown: "An order's outcome is unknown after the reconciler tried (to its maker and the admins)",
  orchestration_failed: "A conversion placed through the Orchestrations API failed (to its maker and the admins)",
  deposit_completed: "A deposit completed (to the admins)",
  statement_difference: "A day's statement does not tie out (to the admins)",
  events_lagging: "The event reader is more than 5 minutes behind (to the admins)",
}

export const inboxItemSchema = z.strictObject({
  /** The notification's stable id (the same one every delivery of it carries). */
  id: z.uuid(),
  kind: z.enum(NOTIFY_KINDS),
  title: z.string(),
  detail: z.string(),
  href: z.string(),
  at: z.string(),
  read: z.boolean(),
  /** Someone acted on it: who, and what they did ("approved"). */
  resolved: z.strictObject({ by: z.string(), what: z.string(), at: z.string() }).nullable(),
})
export type InboxItem = z.infer<typeof inboxItemSchema>

export const inboxSchema = z.strictObject({
  items: z.array(inboxItemSchema),
  unread: z.number().int().min(0),
})
export type Inbox = z.infer<typeof inboxSchema>

export const inboxQuerySchema = z.strictObject({
  unread: z.enum(["1", "0"], { error: "must be 1 (unread only) or 0" }).optional(),
})

export const markReadSchema = z.strictObject({
  /** The notifications to mark read; absent: all of yours. */
  ids: z.array(z.uuid({ error: "each must be a notification id" })).max(200, { error: "at most 200 at once" }).optional(),
  read: z.boolean().default(true),
})

export const preferenceSchema = z.strictObject({ kind: z.enum(NOTIFY_KINDS), console: z.boolean(), email: z.boolean() })
export type Preference = z.infer<typeof preferenceSchema>
export const preferencesSchema = z.strictObject({ items: z.array(preferenceSchema), email_configured: z.boolean() })
export const preferencesBodySchema = z.strictObject({ items: z.array(preferenceSchema).min(1).max(NOTIFY_KINDS.length) })

export const CHANNEL_TYPES = ["chat", "webhook"] as const

export const channelBodySchema = z
  .strictObject({
    name: z.string().trim().min(1, { error: "give the channel a name" }).max(80, { error: "at most 80 characters" }),
    type: z.enum(CHANNEL_TYPES, { error: "must be chat or webhook" }),
    url: z
      .string()
      .trim()
      .max(2000)
      .refine((v) => URL.canParse(v) && /^https?:$/.test(new URL(v).protocol), { error: "must be an http(s) URL" }),
    /** webhook: the Standard Webhooks secret, `whsec_` then base64 (at least 24 bytes). */
    secret: z
      .string()
      .trim()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, { error: "must be whsec_ followed by at least 24 bytes of base64" })
      .optional(),
    kinds: z.array(z.enum(NOTIFY_KINDS)).min(1, { error: "choose at least one kind" }),
  })
  .refine((c) => c.type !== "webhook" || c.secret !== undefined, { path: ["secret"], error: "a webhook channel needs a signing secret" })

export const channelViewSchema = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  type: z.enum(CHANNEL_TYPES),
  /** The URL's scheme and host only: its path and query may hold a token. */
  url_hint: z.string(),
  has_secret: z.boolean(),
  kinds: z.array(z.enum(NOTIFY_KINDS)),
  created_at: z.string(),
  created_by: z.string(),
})
export type ChannelView = z.infer<typeof channelViewSchema>

export const deliveryViewSchema = z.strictObject({
  id: z.uuid(),
  notification_id: z.uuid(),
  kind: z.string(),
  title: z.string(),
  channel: z.enum(["email", "chat", "webhook"]),
  /** A person's email, or a team channel's name. */
  target: z.string(),
  state: z.enum(["pending", "sent", "parked"]),
  attempts: z.number().int(),
  next_at: z.string(),
  last_error: z.string().nullable(),
  created_at: z.string(),
  sent_at: z.string().nullable(),
})
export type DeliveryView = z.infer<typeof deliveryViewSchema>

export const deliveriesQuerySchema = z.strictObject({
  state: z.enum(["pending", "sent", "parked"], { error: "must be pending, sent or parked" }).optional(),
})

export const retryBodySchema = z.strictObject({
  ids: z.array(z.uuid({ error: "each must be a delivery id" })).min(1, { error: "name at least one delivery" }).max(100, { error: "at most 100 at once" }),
})

/**
 * The team's notification settings (admins, beside the team channels): the size per
 * currency at or over which an order placed or asked for through the console notifies the
 * admins (`large_order`); a currency left out has none.
 */
export const notifySettingsBodySchema = z.strictObject({
  large_order: z.partialRecord(z.enum(FIAT_ASSETS), amountSchema(FIAT_DECIMALS)),
})
export type NotifySettingsBody = z.infer<typeof notifySettingsBodySchema>

export const notifySettingsViewSchema = z.strictObject({
  large_order: z.partialRecord(z.enum(FIAT_ASSETS), z.string()),
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable(),
})
export type NotifySettingsView = z.infer<typeof notifySettingsViewSchema>

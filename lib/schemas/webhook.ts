import { z } from "zod"

/** The most a webhook hint's body may hold. */
export const WEBHOOK_BODY_LIMIT = 4096

/**
 * What the service's webhook POSTs: `{id, type, created_at, source}`, nothing more
 * trusted than that. The console reads the event itself (GET /v2/events) before it
 * believes anything: this is only a hint to read sooner.
 */
export const webhookHintSchema = z.looseObject({
  id: z.string({ error: "is required" }).min(1, "is required").max(200, "at most 200 characters"),
  type: z.string({ error: "is required" }).min(1, "is required").max(200, "at most 200 characters"),
  created_at: z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time" }),
  source: z.string({ error: "is required" }).min(1, "is required").max(100, "at most 100 characters"),
})
export type WebhookHint = z.infer<typeof webhookHintSchema>

import { z } from "zod"

/**
 * The sandbox settings that stand in for the service's own configuration: approval of
 * orchestrations at the service, how long a sandbox deposit stays PENDING, and where the
 * service's webhooks go. Part of PUT /sandbox/admin/faults (lib/schemas/sandbox-tools.ts).
 */
export const serviceSettingsShape = {
  orchestration_approval: z.boolean({ error: "must be true or false" }).optional(),
  deposit_delay_ms: z
    .number({ error: "must be a whole number of milliseconds" })
    .int("must be a whole number of milliseconds")
    .min(0, "must not be negative")
    .max(3_600_000, "at most 3600000")
    .optional(),
  webhook_url: z
    .url({ protocol: /^https?$/, error: "must be an http or https URL" })
    .max(2048, "at most 2048 characters")
    .nullable()
    .optional(),
  webhook_api_key_header: z
    .string({ error: "must be text" })
    .regex(/^[A-Za-z0-9-]{1,64}$/, "must be an HTTP header name (letters, digits, dashes; at most 64)")
    .nullable()
    .optional(),
  webhook_api_key: z
    .string({ error: "must be text" })
    .min(1, "must not be empty")
    .max(512, "at most 512 characters")
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces")
    .nullable()
    .optional(),
}

/** Those settings as GET /sandbox/admin/faults answers them (the key never: only whether one is set). */
export const serviceSettingsReadShape = {
  orchestration_approval: z.boolean().optional(),
  deposit_delay_ms: z.number().int().min(0).optional(),
  webhook_url: z.string().nullable().optional(),
  webhook_api_key_header: z.string().nullable().optional(),
  webhook_api_key_set: z.boolean().optional(),
}

import "server-only"
import { z } from "zod"

/**
 * Wire shapes that only this client sees: the OAuth token endpoint. The service's records
 * are parsed with the shared schemas in lib/schemas/records.ts, the sandbox's admin
 * contract with lib/schemas/sandbox-tools.ts.
 */

/** RFC 6749 §5.1; `scope` may be omitted when it equals what was asked. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().int().positive(),
  scope: z.string().optional(),
  token_type: z.string().refine((v) => v.toLowerCase() === "bearer", "must be bearer"),
})
export type TokenResponse = z.infer<typeof tokenResponseSchema>

/** RFC 6749 §5.2 error body. */
export const oauthErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
})

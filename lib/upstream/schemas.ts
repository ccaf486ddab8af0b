import "server-only"
import { z } from "zod"

/**
 * Wire shapes that only this client sees: the OAuth token endpoint, the sandbox-only
 * deposit, and the embedded sandbox's fault-injection admin API. The service's records
 * are parsed with the shared schemas in lib/schemas/records.ts.
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

/** `POST /v2/sandbox/profiles/{id}/deposit` → the customer activity created for it. */
export const sandboxDepositResponseSchema = z.object({
  activity_id: z.string().optional(),
})
export type SandboxDepositResponse = z.infer<typeof sandboxDepositResponseSchema>

export interface SandboxDepositInput {
  asset: string
  /** Decimal string, e.g. "1000.00". */
  amount: string
}

export const FAULT_OPERATIONS = [
  "token",
  "quotes",
  "create_execution",
  "create_conversion",
  "get",
  "list",
  "cancel",
] as const
export const FAULT_KINDS = ["latency", "error", "rate_limit", "hang", "commit_then_fail"] as const

export const faultRuleSchema = z.object({
  operation: z.enum(FAULT_OPERATIONS),
  fault: z.enum(FAULT_KINDS),
  rate: z.number().min(0).max(1),
  latency_ms: z.number().int().min(0).optional(),
  /** `error`: the status to answer; `commit_then_fail`: 503/504, or "drop" to close the connection. */
  status: z.union([z.number().int(), z.literal("drop")]).optional(),
})
export type FaultRule = z.infer<typeof faultRuleSchema>

/** The sandbox's fault settings, as `GET`/`PUT /sandbox/admin/faults` carry them. */
export const sandboxFaultsSchema = z.object({
  seed: z.number().int().optional(),
  settle_delay_ms: z.number().int().min(0).optional(),
  /** The quote hold time, where the sandbox can change it at runtime. */
  quote_ttl_ms: z.number().int().min(0).optional(),
  rate_limits: z.boolean().optional(),
  rules: z.array(faultRuleSchema),
})
export type SandboxFaults = z.infer<typeof sandboxFaultsSchema>
/** Body of `PUT /sandbox/admin/faults`: fields left out keep their current value; `{"rules": []}` clears. */
export type SandboxFaultsInput = Partial<z.input<typeof sandboxFaultsSchema>>

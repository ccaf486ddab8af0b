import { z } from "zod"
import { tryDecimal } from "@/lib/money"
import { assetDecimals } from "@/lib/schemas/assets"
import { idSchema, requiredOr } from "@/lib/schemas/common"
import { SANDBOX_ASSETS } from "@/lib/schemas/sandbox-tools"

/**
 * The sandbox fault "move a balance without a record": a profile's balance changes by a
 * signed amount and the service keeps no record of it (no transfer, no event). What a
 * statement's tie-out exists to catch. Client safe.
 */
const signedAmount = z
  .string({ error: requiredOr('must be a signed decimal written as text, like "3.50" or "-3.50"') })
  .trim()
  .regex(/^-?[0-9]+(\.[0-9]+)?$/, 'must be a signed decimal like "3.50" or "-3.50"')
  .refine((v) => tryDecimal(v)?.isZero() !== true, "must not be zero")

function checkPlaces(body: { asset: string; amount: string }, ctx: z.RefinementCtx): void {
  const places = assetDecimals(body.asset)
  const dot = body.amount.indexOf(".")
  if (dot !== -1 && body.amount.length - dot - 1 > places) ctx.addIssue({ code: "custom", path: ["amount"], message: `at most ${places} decimals for ${body.asset}` })
}

/** The sandbox's POST /sandbox/admin/silent-movements. */
export const silentMovementSchema = z
  .strictObject({
    profile_id: idSchema,
    asset: z.enum(SANDBOX_ASSETS as [string, ...string[]], { error: requiredOr(`must be one of ${SANDBOX_ASSETS.join(", ")}`) }),
    amount: signedAmount,
  })
  .superRefine(checkPlaces)
export type SilentMovement = z.infer<typeof silentMovementSchema>

/** The console's POST /api/sandbox/silent-movement: the same body. */
export const silentMovementRequestSchema = silentMovementSchema

/** What both answer: the balance after the move. */
export const silentMovementAnswerSchema = z.object({
  profile_id: z.string(),
  asset: z.string(),
  amount: z.string(),
  available: z.string(),
})
export type SilentMovementAnswer = z.infer<typeof silentMovementAnswerSchema>

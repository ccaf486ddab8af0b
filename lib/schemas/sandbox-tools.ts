import { z } from "zod"
import { toDecimal } from "@/lib/money"
import { idSchema, requiredOr } from "@/lib/schemas/common"
import { amountSchema } from "@/lib/schemas/money"
import { assetDecimals } from "@/lib/schemas/assets"
import { MAX_DEPOSIT, SANDBOX_ASSETS } from "@/lib/sandbox/schemas"

/**
 * Body of the console's POST /api/sandbox/deposit, shared by the /sandbox form and the
 * route handler: the amount carries at most the asset's decimals (2 for fiat, 8 for the
 * rest), as the sandbox itself checks it.
 */
export const sandboxDepositRequestSchema = z
  .strictObject({
    profile_id: idSchema,
    asset: z.enum(SANDBOX_ASSETS as [string, ...string[]], { error: requiredOr(`must be one of ${SANDBOX_ASSETS.join(", ")}`) }),
    amount: z.string({ error: requiredOr('must be a decimal number written as text, like "12.34"') }).trim(),
  })
  .superRefine((body, ctx) => {
    const places = assetDecimals(body.asset)
    const checked = amountSchema(places).safeParse(body.amount)
    if (!checked.success) {
      const message = checked.error.issues[0]?.message ?? "is not a valid amount"
      ctx.addIssue({ code: "custom", path: ["amount"], message: message.startsWith("at most") ? `${message} for ${body.asset}` : message })
      return
    }
    if (toDecimal(checked.data).gt(toDecimal(MAX_DEPOSIT))) {
      ctx.addIssue({ code: "custom", path: ["amount"], message: `at most ${MAX_DEPOSIT}` })
    }
  })
export type SandboxDepositRequest = z.infer<typeof sandboxDepositRequestSchema>

/** What the banner needs to know: is any fault rule able to fire right now? */
export interface SandboxFaultsStatus {
  faults_active: boolean
  /** Rules that can fire (rate above 0). */
  active_rules: number
  /** The operations those rules touch, without repeats. */
  operations: string[]
}

/** The status of a fault settings answer: a rule with rate 0 never fires, so it is not active. */
export function faultsStatusOf(settings: { rules: readonly { operation: string; rate: number }[] }): SandboxFaultsStatus {
  const active = settings.rules.filter((rule) => rule.rate > 0)
  return {
    faults_active: active.length > 0,
    active_rules: active.length,
    operations: [...new Set(active.map((rule) => rule.operation))],
  }
}

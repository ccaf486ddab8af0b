import { z } from "zod"
import { idSchema } from "@/lib/schemas/common"

/** The longest period one statement covers, in days. */
export const STATEMENT_MAX_DAYS = 31
const DAY_MS = 86_400_000

const utcDate = z
  .string({ error: "must be a UTC date like 2026-11-20" })
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a UTC date like 2026-11-20")
  .refine((v) => !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), "is not a date")

/**
 * GET /api/statements: one profile over whole UTC days, `from` to `to` inclusive (`to`
 * left out: the one day `from`). Client safe.
 */
export const statementQuerySchema = z
  .strictObject({ profile_id: idSchema, from: utcDate, to: utcDate.optional() })
  .transform((q, ctx) => {
    const from = new Date(`${q.from}T00:00:00Z`)
    const to = new Date(Date.parse(`${q.to ?? q.from}T00:00:00Z`) + DAY_MS)
    const days = (to.getTime() - from.getTime()) / DAY_MS
    if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "must be on or after from" })
    else if (days > STATEMENT_MAX_DAYS) ctx.addIssue({ code: "custom", path: ["to"], message: `at most ${STATEMENT_MAX_DAYS} days after from, from included` })
    return { profileId: q.profile_id, from, to }
  })
export type StatementQuery = z.output<typeof statementQuerySchema>

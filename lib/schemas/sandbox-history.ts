import { z } from "zod"
import { requiredOr } from "@/lib/schemas/common"

/**
 * The sandbox tool "generate a past week": the 7 UTC days (or `days`) before today's cutoff filled with
 * settled quote executions, conversions, orchestrations (profile to profile) and deposits,
 * and every profile's balances at each of the 8 cutoffs. Deterministic from `seed` (and the
 * day it runs, and the balances it starts from). Client safe.
 */

export const HISTORY_DAYS = 7

/** The sandbox's POST /sandbox/admin/history, and the console's POST /api/sandbox/history. */
export const historyRequestSchema = z.strictObject({
  seed: z
    .number({ error: requiredOr("must be a whole number") })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(2_147_483_647, "must be at most 2147483647")
    .optional(),
  /** How many UTC days before today's cutoff (default 7: a week; at most a statement's 31). */
  days: z.number({ error: requiredOr("must be a whole number") }).int("must be a whole number").min(1, "must be at least 1").max(31, "must be at most 31").optional(),
  /** Records per day (default 10 to 18, drawn); more for a benchmark's volume. */
  per_day: z.number({ error: requiredOr("must be a whole number") }).int("must be a whole number").min(1, "must be at least 1").max(2000, "must be at most 2000").optional(),
})
export type HistoryRequest = z.infer<typeof historyRequestSchema>

const balanceSchema = z.object({ asset: z.string(), available: z.string(), trading: z.string() })

const common = {
  id: z.string(),
  profile_id: z.string(),
  ref_id: z.string(),
  created_at: z.string(),
  /** When it settled (completed): its balance moves. */
  settled_at: z.string(),
}

/** A record the generator placed at the service: what the console needs to write the intents of those it placed. */
export const historyRecordSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("execution"),
    ...common,
    quote_id: z.string(),
    market: z.string(),
    side: z.enum(["BUY", "SELL"]),
    price: z.string(),
    base_amount: z.string(),
    quote_amount: z.string(),
  }),
  z.object({ kind: z.literal("conversion"), ...common, amount: z.string(), source_asset: z.string(), target_asset: z.string() }),
  z.object({
    kind: z.literal("orchestration"),
    ...common,
    recipient_profile_id: z.string(),
    amount: z.string(),
    source_asset: z.string(),
    target_asset: z.string(),
  }),
])
export type HistoryRecord = z.infer<typeof historyRecordSchema>

/** What the sandbox answers. */
export const sandboxHistoryAnswerSchema = z.object({
  seed: z.number(),
  from: z.string(),
  to: z.string(),
  counts: z.object({ executions: z.number(), conversions: z.number(), orchestrations: z.number(), deposits: z.number() }),
  records: z.array(historyRecordSchema),
  /** Every profile's balances at each cutoff from `from` to `to`, as a snapshot stores them. */
  cutoffs: z.array(z.object({ cutoff: z.string(), balances: z.record(z.string(), z.array(balanceSchema)) })),
})
export type SandboxHistoryAnswer = z.infer<typeof sandboxHistoryAnswerSchema>

/** What the console answers. */
export const historyAnswerSchema = z.object({
  seed: z.number(),
  from: z.string(),
  to: z.string(),
  counts: z.object({
    executions: z.number(),
    conversions: z.number(),
    orchestrations: z.number(),
    deposits: z.number(),
    /** The creates written as placed through the console (the rest read "placed elsewhere"). */
    console_placed: z.number(),
    approvals: z.number(),
    /** Cutoff snapshots stored (a cutoff that had one already keeps it). */
    snapshots: z.number(),
  }),
})
export type HistoryAnswer = z.infer<typeof historyAnswerSchema>

import { z } from "zod"
import { Decimal, toDecimal } from "@/lib/money"
import {
  COMMIT_OPERATIONS,
  FAILING_OPERATIONS,
  FAULT_ERROR_STATUSES,
  FAULT_KINDS,
  FAULT_OPERATIONS,
  type FaultKind,
  type FaultOperation,
  type FaultRule,
  MAX_LATENCY_MS,
  faultRuleSchema,
} from "@/lib/schemas/sandbox-tools"

export const OPERATION_LABELS: Record<FaultOperation, string> = {
  token: "Token (OAuth)",
  quotes: "Quotes",
  create_execution: "Create execution",
  create_conversion: "Create conversion",
  create_orchestration: "Create orchestration",
  get: "Get one record",
  list: "List records and balances",
  cancel: "Cancel conversion",
  deliver_webhook: "Webhook delivery",
}

export const FAULT_LABELS: Record<FaultKind, string> = {
  latency: "Latency",
  error: "Error",
  rate_limit: "Rate limit (429)",
  hang: "Hang",
  commit_then_fail: "Commit then fail",
  fail_processing: "Fail processing",
  drop: "Drop (webhooks)",
}

export const FAULT_HINTS: Record<FaultKind, string> = {
  latency: "Adds a delay before the answer.",
  error: "Answers an error status instead; nothing is stored.",
  rate_limit: "Answers 429 Too Many Requests with Retry-After: 1.",
  hang: "Never answers, until the caller gives up (504 after 2 minutes).",
  commit_then_fail: "Stores the record, then answers an error or drops the connection: the caller can't tell it went through.",
  fail_processing: "Accepts the orchestration (PROCESSING), then it ends FAILED with its source refunded when it falls due.",
  drop: "Loses a webhook delivery for good: never sent, never retried (the event counts it as undelivered).",
}

export { COMMIT_OPERATIONS, FAILING_OPERATIONS, FAULT_ERROR_STATUSES, FAULT_KINDS, FAULT_OPERATIONS, MAX_LATENCY_MS }

const PERCENT = /^(100(\.0{1,2})?|[0-9]{1,2}(\.[0-9]{1,2})?)$/

/** One rule as its inputs hold it: text, as typed. */
export const ruleFormSchema = z
  .object({
    operation: z.enum(FAULT_OPERATIONS, { error: "choose an operation" }),
    fault: z.enum(FAULT_KINDS, { error: "choose a fault" }),
    chance: z.string().trim().regex(PERCENT, "must be a percentage from 0 to 100, at most 2 decimals"),
    latency_ms: z.string().trim(),
    status: z.string().trim(),
  })
  .superRefine((form, ctx) => {
    if (form.fault === "latency" && !/^\d{1,6}$/.test(form.latency_ms)) {
      ctx.addIssue({ code: "custom", path: ["latency_ms"], message: `must be a whole number of milliseconds, at most ${MAX_LATENCY_MS}` })
      return
    }
    if (!PERCENT.test(form.chance)) return
    // The sandbox's own rule schema decides the rest (status per fault, commit-then-fail operations).
    const checked = faultRuleSchema.safeParse(ruleFromForm(form))
    if (checked.success) return
    for (const issue of checked.error.issues) {
      const field = issue.path[0] === "rate" ? "chance" : String(issue.path[0] ?? "fault")
      ctx.addIssue({ code: "custom", path: [field], message: issue.message })
    }
  })
export type RuleForm = z.infer<typeof ruleFormSchema>

export const faultsFormSchema = z.object({ rules: z.array(ruleFormSchema).max(50, "at most 50 rules") })
export type FaultsForm = z.infer<typeof faultsFormSchema>

/** The rule the sandbox takes: the chance as a rate from 0 to 1; only the fields its fault uses. */
export function ruleFromForm(form: RuleForm): FaultRule {
  const rule: FaultRule = {
    operation: form.operation,
    fault: form.fault,
    rate: toDecimal(form.chance).div(100).toNumber(),
  }
  if (form.fault === "latency") rule.latency_ms = Number(form.latency_ms)
  if ((form.fault === "error" || form.fault === "commit_then_fail") && form.status !== "") {
    rule.status = form.status === "drop" ? "drop" : Number(form.status)
  }
  return rule
}

/** A rule as the form shows it. */
export function formFromRule(rule: { operation: string; fault: string; rate: number; latency_ms?: number | undefined; status?: number | "drop" | undefined }): RuleForm {
  return {
    operation: (FAULT_OPERATIONS as readonly string[]).includes(rule.operation) ? (rule.operation as FaultOperation) : "quotes",
    fault: (FAULT_KINDS as readonly string[]).includes(rule.fault) ? (rule.fault as FaultKind) : "latency",
    chance: new Decimal(rule.rate).mul(100).toDecimalPlaces(2).toFixed(),
    latency_ms: rule.latency_ms === undefined ? "" : String(rule.latency_ms),
    status: rule.status === undefined ? "" : String(rule.status),
  }
}

export const NEW_RULE: RuleForm = { operation: "create_execution", fault: "error", chance: "100", latency_ms: "", status: "503" }

const wholeMs = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,7}$/, "must be a whole number of milliseconds")
    .refine((v) => !/^\d+$/.test(v) || (Number(v) >= min && Number(v) <= max), `must be from ${min} to ${max}`)

/** Settle delay, quote hold time (when the sandbox can change it) and the rate-limit switch, as their inputs hold them. */
export const settingsFormSchema = z.object({
  settle_delay_ms: wholeMs(0, 3_600_000),
  /** Empty when the sandbox does not offer it. */
  quote_ttl_ms: z.string().trim().refine((v) => v === "" || (/^\d{1,7}$/.test(v) && Number(v) >= 100 && Number(v) <= 3_600_000), "must be a whole number of milliseconds from 100 to 3600000"),
  rate_limits: z.boolean(),
})
export type SettingsForm = z.infer<typeof settingsFormSchema>

import { z } from "zod"
import { INTENT_OPERATION_VALUES, INTENT_STATE_VALUES } from "@/components/audit/format"

const DAY = /^\d{4}-\d{2}-\d{2}$/

export const auditFilterFormSchema = z
  .object({
    staff: z
      .string()
      .trim()
      .max(200, "at most 200 characters")
      .refine((v) => v === "" || z.email().safeParse(v).success, "must be a staff email like trader@example.com"),
    operation: z.enum(["", ...INTENT_OPERATION_VALUES], { error: "must be one of the listed operations" }),
    state: z.enum(["", ...INTENT_STATE_VALUES], { error: "must be one of the listed states" }),
    from: z.string().refine((v) => v === "" || DAY.test(v), "must be a date"),
    to: z.string().refine((v) => v === "" || DAY.test(v), "must be a date"),
  })
  .superRefine((form, ctx) => {
    if (form.from && form.to && form.to < form.from) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "must be on or after the From date" })
    }
  })
export type AuditFilterForm = z.infer<typeof auditFilterFormSchema>

export const EMPTY_FILTERS: AuditFilterForm = { staff: "", operation: "", state: "", from: "", to: "" }

/** The filters from the address (?staff=…&state=…), keeping only the fields that are valid. */
export function filtersFromSearch(search: Record<string, string | string[] | undefined>): AuditFilterForm {
  const result: AuditFilterForm = { ...EMPTY_FILTERS }
  for (const key of Object.keys(EMPTY_FILTERS) as (keyof AuditFilterForm)[]) {
    const raw = search[key]
    const value = typeof raw === "string" ? raw : undefined
    if (value === undefined) continue
    const candidate = { ...result, [key]: value }
    if (auditFilterFormSchema.safeParse(candidate).success) Object.assign(result, { [key]: value })
  }
  return result
}

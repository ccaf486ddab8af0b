import { describe, expect, it } from "vitest"
import { type RuleForm, faultsFormSchema, formFromRule, ruleFormSchema, ruleFromForm, settingsFormSchema } from "@/components/sandbox-tools/rule-form"
import { faultSettingsUpdateSchema } from "@/lib/schemas/sandbox-tools"

const rule = (over: Partial<RuleForm>): RuleForm => ({
  operation: "create_execution",
  fault: "error",
  chance: "100",
  latency_ms: "",
  status: "503",
  ...over,
})

function fieldErrors(form: RuleForm): Record<string, string> {
  const result = ruleFormSchema.safeParse(form)
  if (result.success) return {}
  return Object.fromEntries(result.error.issues.map((i) => [i.path.join("."), i.message]))
}

describe("fault rule form", () => {
  it("turns each kind of rule into what the sandbox takes", () => {
    expect(ruleFromForm(rule({}))).toEqual({ operation: "create_execution", fault: "error", rate: 1, status: 503 })
    expect(ruleFromForm(rule({ fault: "latency", chance: "12.5", latency_ms: "750", status: "503" }))).toEqual({
      operation: "create_execution",
      fault: "latency",
      rate: 0.125,
      latency_ms: 750,
    })
    expect(ruleFromForm(rule({ fault: "commit_then_fail", status: "drop" }))).toEqual({
      operation: "create_execution",
      fault: "commit_then_fail",
      rate: 1,
      status: "drop",
    })
    expect(ruleFromForm(rule({ operation: "quotes", fault: "hang", status: "503" }))).toEqual({ operation: "quotes", fault: "hang", rate: 1 })
    expect(ruleFromForm(rule({ operation: "token", fault: "rate_limit", chance: "0.5" }))).toEqual({ operation: "token", fault: "rate_limit", rate: 0.005 })
  })

  it("every rule the form accepts, the sandbox accepts too", () => {
    const forms = [
      rule({}),
      rule({ fault: "latency", latency_ms: "0" }),
      rule({ fault: "commit_then_fail", status: "504" }),
      rule({ operation: "create_conversion", fault: "commit_then_fail", status: "drop" }),
      rule({ operation: "list", fault: "hang" }),
    ]
    const parsed = faultsFormSchema.parse({ rules: forms })
    expect(faultSettingsUpdateSchema.safeParse({ rules: parsed.rules.map(ruleFromForm) }).success).toBe(true)
  })

  it("names the field and the rule when a rule is wrong", () => {
    expect(fieldErrors(rule({ chance: "101" }))).toEqual({ chance: "must be a percentage from 0 to 100, at most 2 decimals" })
    expect(fieldErrors(rule({ chance: "abc" }))).toHaveProperty("chance")
    expect(fieldErrors(rule({ fault: "latency", latency_ms: "" }))).toHaveProperty("latency_ms")
    expect(fieldErrors(rule({ fault: "latency", latency_ms: "999999" }))).toEqual({ latency_ms: "at most 120000" })
    expect(fieldErrors(rule({ status: "" }))).toEqual({ status: "is required for error faults" })
    expect(fieldErrors(rule({ status: "418" }))).toEqual({ status: "must be one of 500, 502, 503, 504" })
    expect(fieldErrors(rule({ fault: "error", status: "drop" }))).toHaveProperty("status")
    expect(fieldErrors(rule({ operation: "quotes", fault: "commit_then_fail", status: "503" }))).toEqual({
      operation: "commit_then_fail applies to create_execution, create_conversion, create_orchestration only",
    })
  })

  it("shows a stored rule as the form holds it and back", () => {
    for (const stored of [
      { operation: "create_execution", fault: "commit_then_fail", rate: 1, status: "drop" as const },
      { operation: "quotes", fault: "latency", rate: 0.25, latency_ms: 1500 },
      { operation: "get", fault: "error", rate: 0.3333, status: 500 },
    ]) {
      expect(ruleFromForm(ruleFormSchema.parse(formFromRule(stored)))).toEqual(stored)
    }
    expect(formFromRule({ operation: "quotes", fault: "error", rate: 1e-7, status: 500 }).chance).toBe("0")
  })
})

describe("settings form", () => {
  it("takes a whole number of milliseconds up to an hour", () => {
    expect(settingsFormSchema.safeParse({ settle_delay_ms: "1500", quote_ttl_ms: "", rate_limits: true }).success).toBe(true)
    expect(settingsFormSchema.safeParse({ settle_delay_ms: "0", quote_ttl_ms: "30000", rate_limits: false }).success).toBe(true)
    for (const bad of ["", "-1", "1.5", "abc", "3600001"]) {
      expect(settingsFormSchema.safeParse({ settle_delay_ms: bad, quote_ttl_ms: "", rate_limits: false }).success, bad).toBe(false)
    }
    for (const bad of ["99", "3600001", "1.5", "30 s"]) {
      expect(settingsFormSchema.safeParse({ settle_delay_ms: "0", quote_ttl_ms: bad, rate_limits: false }).success, bad).toBe(false)
    }
  })
})

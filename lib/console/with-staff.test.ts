import { describe, expect, it } from "vitest"
import { validationProblem } from "@/lib/console/with-staff"
import { quoteExecutionCreateSchema } from "@/lib/schemas/quote-execution"

describe("validation problems", () => {
  it("name each offending field and its rule", () => {
    const result = quoteExecutionCreateSchema.safeParse({
      quote_id: "q-1",
      base_amount: "0.123456789",
      metadata: { k: "x".repeat(101) },
    })
    expect(result.success).toBe(false)
    if (result.success) return
    const problem = validationProblem(result.error)
    expect(problem.status).toBe(400)
    expect(problem.meta).toEqual({
      fields: { base_amount: "at most 8 decimals", "metadata.k": "values are at most 100 characters" },
    })
    expect(problem.detail).toBe("base_amount: at most 8 decimals; metadata.k: values are at most 100 characters")
  })
})

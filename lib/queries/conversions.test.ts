import { describe, expect, it, vi } from "vitest"
import { ApiNetworkError, ApiProblemError } from "@/lib/queries/api"
import type { Conversion } from "@/lib/schemas/records"
import { lookupConversionSubmission } from "@/lib/queries/conversions"

const REF = "0b6c4a52-3d8e-4f4e-9d55-0a1c2b3d4e5f"
const record: Conversion = { id: "7e1f0c2a-1b2c-4d3e-8f90-a1b2c3d4e5f6", status: "CREATED", ref_id: REF }
const problem = (status: number) => new ApiProblemError({ type: "about:blank", title: "x", status })

describe("lookupConversionSubmission (before a new ref_id replaces one whose outcome is unknown)", () => {
  it("finds the conversion the earlier request placed", async () => {
    const lookup = vi.fn(() => Promise.resolve({ conversion: record, matched_by: "ref_id" as const }))
    await expect(lookupConversionSubmission(REF, lookup)).resolves.toEqual({ placed: true, record })
    expect(lookup).toHaveBeenCalledWith(REF)
  })

  it("allows a new submission only on a plain 404", async () => {
    await expect(lookupConversionSubmission(REF, () => Promise.reject(problem(404)))).resolves.toEqual({ placed: false })
  })

  it("leaves it open on anything else: in flight (409), outage, rate limit, no answer, a different record", async () => {
    for (const error of [problem(409), problem(502), problem(429), problem(403), new ApiNetworkError(new TypeError("offline"))]) {
      await expect(lookupConversionSubmission(REF, () => Promise.reject(error))).resolves.toEqual({ placed: "unknown", error })
    }
    const other = { ...record, ref_id: "someone-else" }
    const answer = await lookupConversionSubmission(REF, () => Promise.resolve({ conversion: other, matched_by: "id" as const }))
    expect(answer.placed).toBe("unknown")
  })
})

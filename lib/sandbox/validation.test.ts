import { describe, expect, it } from "vitest"
import { z } from "zod"
import { parseOrThrow } from "@/lib/sandbox/validation"
import type { HttpProblem } from "@/lib/problem"

describe("parseOrThrow", () => {
  it("names an unknown key even when it is called like something every object has (valueOf, constructor, __proto__)", () => {
    const schema = z.strictObject({ amount: z.string() })
    for (const key of ["valueOf", "constructor", "toString", "hasOwnProperty", "__proto__"]) {
      const body = JSON.parse(`{"amount":"1","${key}":0}`) as unknown
      let thrown: HttpProblem | undefined
      try {
        parseOrThrow(schema, body)
      } catch (error) {
        thrown = error as HttpProblem
      }
      expect(thrown?.problem.status, key).toBe(400)
      expect(JSON.parse(JSON.stringify(thrown?.problem.meta)), key).toEqual({ fields: { [key]: "is not a known field" } })
    }
  })
})

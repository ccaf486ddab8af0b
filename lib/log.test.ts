import { describe, expect, it } from "vitest"
import { redact } from "@/lib/log"

describe("redact", () => {
  it("hides secret-looking keys at any depth and bearer tokens inside text", () => {
    const out = redact({
      clientSecret: "s3cret",
      nested: { access_token: "tok", list: [{ Authorization: "Bearer abc.def" }] },
      note: "sent Authorization: Bearer eyJhbGciOi.payload.sig to the service",
      amount: "12.34",
    })
    expect(out).toEqual({
      clientSecret: "[redacted]",
      nested: { access_token: "[redacted]", list: [{ Authorization: "[redacted]" }] },
      note: "sent Authorization: Bearer [redacted] to the service",
      amount: "12.34",
    })
  })
})

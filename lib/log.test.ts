import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { staffRef } from "@/lib/auth/staff-ref"
import { errorKind, loggable, redact } from "@/lib/log"

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

  it("keeps a failed query's SQL but never the parameters the request sent", () => {
    const message = 'Error: Failed query: insert into "console_intents" ("ref_id") values ($1)\nparams: my-private-ref,{"note":"salary"}'
    const out = String(redact(message))
    expect(out).toContain('insert into "console_intents"')
    expect(out).not.toContain("my-private-ref")
    expect(out).not.toContain("salary")
  })

  it("hides passwords inside URLs and secret parameters inside free text", () => {
    expect(redact("Error: connect ECONNREFUSED postgres://console:hunter2@db:5432/console")).toBe(
      "Error: connect ECONNREFUSED postgres://console:[redacted]@db:5432/console",
    )
    expect(redact("POST body grant_type=client_credentials&client_id=c1&client_secret=s3cret&scope=a")).toBe(
      "POST body grant_type=client_credentials&client_id=c1&client_secret=[redacted]&scope=a",
    )
    expect(redact("https://api.example.com/v2/quotes?markets=BTCUSD")).toBe("https://api.example.com/v2/quotes?markets=BTCUSD")
  })
})

describe("loggable: no email in a log line", () => {
  process.env.NEXTAUTH_SECRET ??= "log-tests-secret-0123456789-abcdefghijklmnop"

  it("replaces every email, in any field or message, by a stable reference that does not contain it", () => {
    const out = loggable({
      staff: "Trader@Example.com",
      nested: { list: ["maker: admin@example.com, checker: trader@example.com."] },
      amount: "12.34",
    }) as { staff: string; nested: { list: string[] }; amount: string }
    const ref = staffRef("trader@example.com")
    expect(ref).toMatch(/^staff_[0-9a-f]{16}$/)
    // The same person whatever the case of the address, another person another reference.
    expect(out.staff).toBe(ref)
    expect(out.nested.list[0]).toBe(`maker: ${staffRef("admin@example.com")}, checker: ${ref}.`)
    expect(staffRef("admin@example.com")).not.toBe(ref)
    expect(JSON.stringify(out)).not.toContain("@")
    expect(out.amount).toBe("12.34")
  })

  it("is keyed: the reference is not a plain hash of the email anyone could compute from a list of addresses", () => {
    const plain = createHash("sha256").update("trader@example.com").digest("hex")
    expect(plain).not.toContain(staffRef("trader@example.com").slice("staff_".length))
  })
})

describe("errorKind", () => {
  it("names a failure by its class, never by its message, which may hold what a request sent", () => {
    const failed = new TypeError("Failed query: insert … params: my-private-ref")
    expect(errorKind(failed)).toBe("TypeError")
    class UpstreamTimeout extends Error {
      override name = "UpstreamTimeout"
    }
    expect(errorKind(new UpstreamTimeout("client_secret=abc"))).toBe("UpstreamTimeout")
    expect(errorKind("a thrown string with a secret")).toBe("unknown")
    expect(errorKind(undefined)).toBe("unknown")
  })
})

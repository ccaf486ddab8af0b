import { describe, expect, it } from "vitest"
import { signInFailureMessage } from "@/components/auth/sign-in-form"

describe("the sign-in form's refusal messages", () => {
  it("says when a locked account may try again, how long an address waits, and nothing more for a wrong password", () => {
    const now = new Date("2026-01-01T10:00:00Z")
    const until = new Date("2026-01-01T10:02:00Z")
    expect(signInFailureMessage(`Locked:${until.toISOString()}`, now)).toBe(
      `Too many failed sign-ins for this account. Try again after ${until.toLocaleTimeString()} (in about 2 minutes).`,
    )
    expect(signInFailureMessage("Throttled:61")).toBe("Too many failed sign-ins from your address. Try again in 2 minutes.")
    expect(signInFailureMessage("CredentialsSignin")).toBe("Wrong email or password.")
    expect(signInFailureMessage(undefined)).toBe("Wrong email or password.")
  })
})

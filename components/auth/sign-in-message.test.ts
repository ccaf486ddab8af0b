import { describe, expect, it } from "vitest"
import { signInErrorMessage, signInFailureMessage } from "@/components/auth/sign-in-message"

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

  it("says why single sign-on refused someone, in the console's words, never the provider's", () => {
    expect(signInErrorMessage("SsoNoRole")).toBe("Your account has no console role: ask an admin to give you one.")
    expect(signInErrorMessage("SsoUnknownRole")).toContain("not one this console knows: ask an admin")
    expect(signInErrorMessage("SsoAmbiguousRole")).toContain("several console roles")
    expect(signInErrorMessage("SsoEmailNotVerified")).toContain("has not verified your email address")
    expect(signInErrorMessage("AccessDenied")).toBe("Your account may not use this console: ask an admin.")
    expect(signInErrorMessage("OAuthCallback")).toBe("Sign-in with the provider failed: try again.")
    expect(signInErrorMessage("invalid_grant: <script>alert(1)</script>")).toBe("Sign-in failed: try again.")
    expect(signInErrorMessage("Throttled:61")).toBe("Too many failed sign-ins from your address. Try again in 2 minutes.")
    expect(signInErrorMessage(undefined)).toBeNull()
    expect(signInErrorMessage("")).toBeNull()
  })

  it("says when the right secret is refused: a disabled account, a role that signs in with a passkey, a passkey that did not verify", () => {
    expect(signInFailureMessage("Disabled")).toBe("Your account is disabled: ask an admin.")
    expect(signInFailureMessage("PasskeyRequired")).toContain("Your role signs in with a passkey")
    expect(signInFailureMessage("PasskeyFailed")).toContain("That passkey did not sign you in")
    // A refused single sign-on of a disabled person lands on the page with ?error=Disabled.
    expect(signInErrorMessage("Disabled")).toBe("Your account is disabled: ask an admin.")
  })
})

import { describe, expect, it } from "vitest"
import { type OidcRules, decideSignIn, mergeClaims, roleFromClaim } from "@/lib/auth/oidc-claims"

const rules: OidcRules = { roleClaim: "console_role", roleList: "refuse", requireVerifiedEmail: true }
const idToken = { iss: "https://idp.example.com", sub: "u-1", aud: "console", exp: 2_000_000_000 }

describe("merging the ID token's claims with userinfo", () => {
  it("signs in a provider at its standard settings, where email and role come only from userinfo", () => {
    const claims = mergeClaims(idToken, { sub: "u-1", email: "Trader@Example.com", email_verified: true, console_role: "trader" }, "console_role")
    expect(decideSignIn(claims, rules)).toEqual({ ok: true, subject: "u-1", email: "trader@example.com", role: "trader" })
  })

  it("lets userinfo win for the role claim and the email, and keeps the ID token's own claims", () => {
    const claims = mergeClaims(
      { ...idToken, email: "old@example.com", email_verified: true, console_role: "admin", name: "From the token" },
      { sub: "u-1", email: "new@example.com", email_verified: true, console_role: "viewer", name: "From userinfo" },
      "console_role",
    )
    expect(claims).toMatchObject({ iss: "https://idp.example.com", sub: "u-1", email: "new@example.com", console_role: "viewer", name: "From the token" })
    expect(decideSignIn(claims, rules)).toMatchObject({ ok: true, email: "new@example.com", role: "viewer" })
  })

  it("never vouches for userinfo's other address with the ID token's email_verified", () => {
    const claims = mergeClaims({ ...idToken, email: "me@example.com", email_verified: true }, { sub: "u-1", email: "admin@example.com", console_role: "admin" }, "console_role")
    expect(decideSignIn(claims, rules)).toEqual({ ok: false, subject: "u-1", email: null, reason: "email_not_verified" })
    // The same address keeps the token's flag.
    const same = mergeClaims({ ...idToken, email: "me@example.com", email_verified: true }, { sub: "u-1", email: "ME@example.com", console_role: "admin" }, "console_role")
    expect(decideSignIn(same, rules)).toMatchObject({ ok: true, role: "admin" })
    // userinfo's "false" beats the token's true.
    const unverified = mergeClaims({ ...idToken, email: "me@example.com", email_verified: true }, { sub: "u-1", email_verified: false }, "console_role")
    expect(unverified.email_verified).toBe(false)
  })

  it("ignores a userinfo answer about another subject, and works from the ID token alone", () => {
    const token = { ...idToken, email: "a@example.com", email_verified: true, console_role: "support" }
    expect(mergeClaims(token, { sub: "someone-else", console_role: "admin" }, "console_role")).toEqual(token)
    expect(decideSignIn(mergeClaims(token, null, "console_role"), rules)).toMatchObject({ ok: true, role: "support" })
  })

  it("takes the role from the ID token when userinfo has none (a provider that puts roles only in the token)", () => {
    const claims = mergeClaims({ ...idToken, roles: ["support"] }, { sub: "u-1", email: "e@example.com", email_verified: true }, "roles")
    expect(decideSignIn(claims, { ...rules, roleClaim: "roles" })).toMatchObject({ ok: true, role: "support" })
  })

  it("reads the role from the configured claim name", () => {
    const claims = mergeClaims(idToken, { sub: "u-1", email: "g@example.com", email_verified: true, groups_role: "admin", console_role: "viewer" }, "groups_role")
    expect(decideSignIn(claims, { ...rules, roleClaim: "groups_role" })).toMatchObject({ ok: true, role: "admin" })
  })
})

describe("the role a claim gives", () => {
  it("takes one known role, and refuses a missing, empty or unknown one", () => {
    expect(roleFromClaim("trader", "refuse")).toEqual({ role: "trader" })
    expect(roleFromClaim(["admin"], "refuse")).toEqual({ role: "admin" })
    expect(roleFromClaim(["viewer", "viewer"], "refuse")).toEqual({ role: "viewer" })
    expect(roleFromClaim(undefined, "refuse")).toEqual({ reason: "no_role" })
    expect(roleFromClaim("", "highest")).toEqual({ reason: "no_role" })
    expect(roleFromClaim([], "highest")).toEqual({ reason: "no_role" })
    expect(roleFromClaim(42, "highest")).toEqual({ reason: "no_role" })
    expect(roleFromClaim("superuser", "highest")).toEqual({ reason: "unknown_role" })
  })

  it("refuses a list of several roles as ambiguous unless configured to take the highest, whatever the order", () => {
    expect(roleFromClaim(["viewer", "admin"], "refuse")).toEqual({ reason: "ambiguous_role" })
    expect(roleFromClaim("viewer admin", "refuse")).toEqual({ reason: "ambiguous_role" })
    expect(roleFromClaim(["viewer", "admin", "support"], "highest")).toEqual({ role: "admin" })
    expect(roleFromClaim(["admin", "viewer"], "highest")).toEqual({ role: "admin" })
    expect(roleFromClaim(["superuser", "support"], "highest")).toEqual({ role: "support" })
    expect(roleFromClaim(["superuser", "root"], "highest")).toEqual({ reason: "unknown_role" })
  })
})

describe("the sign-in decision", () => {
  const base = { sub: "u-9", email: "x@example.com", email_verified: true, console_role: "trader" }
  it("refuses an unverified email unless the check is off, and names the subject in every refusal", () => {
    expect(decideSignIn({ ...base, email_verified: false }, rules)).toEqual({ ok: false, subject: "u-9", email: null, reason: "email_not_verified" })
    expect(decideSignIn({ ...base, email_verified: undefined }, rules)).toMatchObject({ ok: false, reason: "email_not_verified" })
    expect(decideSignIn({ ...base, email_verified: "true" }, rules)).toMatchObject({ ok: true })
    expect(decideSignIn({ ...base, email_verified: undefined }, { ...rules, requireVerifiedEmail: false })).toMatchObject({ ok: true, role: "trader" })
  })

  it("refuses without a subject, an email or a role", () => {
    expect(decideSignIn({ ...base, sub: "" }, rules)).toMatchObject({ ok: false, reason: "no_subject" })
    expect(decideSignIn({ ...base, email: " " }, rules)).toMatchObject({ ok: false, subject: "u-9", reason: "no_email" })
    expect(decideSignIn({ ...base, console_role: undefined }, rules)).toEqual({ ok: false, subject: "u-9", email: "x@example.com", reason: "no_role" })
    expect(decideSignIn({ ...base, console_role: "owner" }, rules)).toMatchObject({ ok: false, reason: "unknown_role" })
  })
})

import { ROLES, type Role, isRole } from "@/lib/auth/roles"

/**
 * What single sign-on makes of a provider's claims. OpenID Connect returns the scope claims
 * (email, profile, custom claims) from the userinfo endpoint in the code flow, and some
 * providers copy them into the ID token as well: both are read, and userinfo wins for the
 * claims that decide who someone is and what they may do.
 */

export type RoleListRule = "refuse" | "highest"

export interface OidcRules {
  /** The claim carrying the console role (OIDC_ROLE_CLAIM). */
  roleClaim: string
  /** A list of roles: refused as ambiguous, or the highest valid one (OIDC_ROLE_LIST). */
  roleList: RoleListRule
  /** email_verified must be true (OIDC_REQUIRE_VERIFIED_EMAIL). */
  requireVerifiedEmail: boolean
}

export type RefusalReason = "no_subject" | "no_email" | "email_not_verified" | "no_role" | "unknown_role" | "ambiguous_role"

/** Words for the log and the audit trail. */
export const REFUSAL_REASONS: Record<RefusalReason, string> = {
  no_subject: "the provider sent no subject",
  no_email: "the provider sent no email",
  email_not_verified: "the provider has not verified the email",
  no_role: "no console role",
  unknown_role: "a console role this console does not know",
  ambiguous_role: "several console roles (OIDC_ROLE_LIST=refuse)",
}

/** The `?error=` a refused single sign-on carries back to the sign-in page, by reason (components/auth/sign-in-message words them). */
export const SSO_REFUSAL_ERRORS: Record<RefusalReason, string> = {
  no_subject: "SsoNoSubject",
  no_email: "SsoNoEmail",
  email_not_verified: "SsoEmailNotVerified",
  no_role: "SsoNoRole",
  unknown_role: "SsoUnknownRole",
  ambiguous_role: "SsoAmbiguousRole",
}

export type OidcDecision =
  | { ok: true; subject: string; email: string; role: Role }
  | { ok: false; subject: string | null; email: string | null; reason: RefusalReason }

/**
 * The ID token's claims and userinfo's together. Userinfo decides the role claim when it
 * carries one, and email with email_verified as a pair: an email from userinfo is verified
 * by userinfo's flag, or by the ID token's only for the same address.
 * A userinfo answer for another subject is ignored altogether.
 */
export function mergeClaims(idToken: Record<string, unknown>, userinfo: Record<string, unknown> | null, roleClaim: string): Record<string, unknown> {
  if (!userinfo || userinfo.sub !== idToken.sub) return { ...idToken }
  const { sub: _sub, ...rest } = userinfo
  const merged: Record<string, unknown> = { ...rest, ...idToken }
  if ("email" in userinfo) {
    merged.email = userinfo.email
    const sameAddress = typeof userinfo.email === "string" && typeof idToken.email === "string" && userinfo.email.toLowerCase() === idToken.email.toLowerCase()
    if (!sameAddress) delete merged.email_verified
  }
  if ("email_verified" in userinfo) merged.email_verified = userinfo.email_verified
  if (roleClaim in userinfo) merged[roleClaim] = userinfo[roleClaim]
  return merged
}

export type RoleOutcome = { role: Role } | { reason: "no_role" | "unknown_role" | "ambiguous_role" }

/**
 * The console role a claim gives. A single string must be a known role. A list (or a
 * space/comma-separated string) with one distinct value is that value; with several, it is
 * refused as ambiguous unless the rule is `highest`, which takes the highest known role
 * (unknown values are ignored then; the order at the provider never matters).
 */
export function roleFromClaim(claim: unknown, rule: RoleListRule): RoleOutcome {
  const values = roleValues(claim)
  if (values.length === 0) return { reason: "no_role" }
  const distinct = [...new Set(values)]
  if (distinct.length === 1) return isRole(distinct[0]) ? { role: distinct[0] } : { reason: "unknown_role" }
  if (rule === "refuse") return { reason: "ambiguous_role" }
  const known = distinct.filter(isRole)
  if (known.length === 0) return { reason: "unknown_role" }
  return { role: known.reduce((a, b) => (ROLES.indexOf(b) > ROLES.indexOf(a) ? b : a)) }
}

function roleValues(claim: unknown): string[] {
  const list = Array.isArray(claim) ? claim : typeof claim === "string" ? claim.split(/[\s,]+/) : []
  return list.filter((v): v is string => typeof v === "string").map((v) => v.trim().toLowerCase()).filter(Boolean)
}

/** Whether the merged claims may sign in, and as whom. */
export function decideSignIn(claims: Record<string, unknown>, rules: OidcRules): OidcDecision {
  const subject = typeof claims.sub === "string" && claims.sub !== "" ? claims.sub : null
  const email = typeof claims.email === "string" && claims.email.trim() !== "" ? claims.email.trim().toLowerCase() : null
  if (!subject) return { ok: false, subject, email, reason: "no_subject" }
  if (!email) return { ok: false, subject, email, reason: "no_email" }
  // Some providers send the flag as the string "true".
  const verified = claims.email_verified === true || claims.email_verified === "true"
  if (rules.requireVerifiedEmail && !verified) return { ok: false, subject, email: null, reason: "email_not_verified" }
  const role = roleFromClaim(claims[rules.roleClaim], rules.roleList)
  if ("reason" in role) return { ok: false, subject, email, reason: role.reason }
  return { ok: true, subject, email, role: role.role }
}

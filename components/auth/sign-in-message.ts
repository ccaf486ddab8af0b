/** What each refused single sign-on's `?error=` (lib/auth/oidc-claims SSO_REFUSAL_ERRORS) tells the person. */
const SSO_MESSAGES: Record<string, string> = {
  SsoNoRole: "Your account has no console role: ask an admin to give you one.",
  SsoUnknownRole: "Your account's console role is not one this console knows: ask an admin.",
  SsoAmbiguousRole: "Your account has several console roles: ask an admin to leave you one.",
  SsoEmailNotVerified: "Your provider has not verified your email address: verify it there, then sign in again.",
  SsoNoEmail: "Your provider did not send an email address for your account: ask an admin.",
  SsoNoSubject: "Sign-in with the provider failed: try again.",
  // The staff table's refusals (lib/auth/options.ts), for every way in.
  Disabled: "Your account is disabled: ask an admin.",
  PasskeyRequired: "Your role signs in with a passkey: use “Sign in with a passkey”.",
  PasskeyFailed: "That passkey did not sign you in: try again, or use another way in.",
  // next-auth's own refusal, for a sign-in callback that said no without a reason.
  AccessDenied: "Your account may not use this console: ask an admin.",
}

const STAFF_REFUSALS = new Set(["Disabled", "PasskeyRequired", "PasskeyFailed"])

/** next-auth's codes for a provider that could not be reached or answered wrongly. */
const PROVIDER_FAILURES = new Set(["OAuthSignin", "OAuthCallback", "OAuthCreateAccount", "OAuthAccountNotLinked", "Callback", "Configuration", "Verification", "Default"])

/**
 * What a `?error=` on the sign-in page means for the person there; null for none. Never
 * the provider's raw error: only the console's own words for a code it knows.
 */
export function signInErrorMessage(error: string | null | undefined, now = new Date()): string | null {
  if (!error) return null
  if (SSO_MESSAGES[error]) return SSO_MESSAGES[error]
  if (PROVIDER_FAILURES.has(error)) return "Sign-in with the provider failed: try again."
  if (error.startsWith("Locked:") || error.startsWith("Throttled:") || error === "CredentialsSignin") return signInFailureMessage(error, now)
  return "Sign-in failed: try again."
}

/** What the server's refusal of an email and password means for the person at the form. */
export function signInFailureMessage(error: string | null | undefined, now = new Date()): string {
  if (error?.startsWith("Locked:")) {
    const until = new Date(error.slice("Locked:".length))
    if (!Number.isNaN(until.getTime())) {
      const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 60_000))
      return `Too many failed sign-ins for this account. Try again after ${until.toLocaleTimeString()} (in about ${minutes} minute${minutes === 1 ? "" : "s"}).`
    }
  }
  if (error?.startsWith("Throttled:")) {
    const seconds = Number(error.slice("Throttled:".length))
    const minutes = Number.isFinite(seconds) ? Math.max(1, Math.ceil(seconds / 60)) : 10
    return `Too many failed sign-ins from your address. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`
  }
  if (error && STAFF_REFUSALS.has(error)) return SSO_MESSAGES[error] ?? "Sign-in failed: try again."
  return "Wrong email or password."
}

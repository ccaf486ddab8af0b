import type { RefusalReason } from "@/lib/auth/oidc-claims"
import type { Role, Staff } from "@/lib/auth/roles"

declare module "next-auth" {
  interface User {
    role?: Role | undefined
    /** Single sign-on: the provider's subject, why the claims were refused, the ID token. */
    subject?: string | null | undefined
    refusal?: RefusalReason | undefined
    idToken?: string | undefined
  }
  interface Session {
    staff: Staff | null
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    role?: Role
    signedInAt?: number
    /** The console_sessions row this cookie belongs to. */
    sid?: string
    /** Single sign-on: the provider's ID token, for id_token_hint at sign-out. Never sent to the browser. */
    idToken?: string
  }
}

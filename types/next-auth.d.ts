import type { Role, Staff } from "@/lib/auth/roles"

declare module "next-auth" {
  interface User {
    role?: Role | undefined
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
  }
}

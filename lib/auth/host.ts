import "server-only"
import { env } from "@/lib/env"

/** Loopback names and addresses: what a console without NEXTAUTH_URL may be reached as. */
export function isLoopbackHost(hostHeader: string): boolean {
  const host = hostHeader.trim().toLowerCase()
  let name: string
  if (host.startsWith("[")) {
    const end = host.indexOf("]")
    if (end < 0) return false
    name = host.slice(1, end)
  } else {
    name = host.replace(/:\d*$/, "")
  }
  if (name === "localhost" || name.endsWith(".localhost")) return true
  if (name === "::1" || name === "0:0:0:0:0:0:0:1") return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)
}

/**
 * Without NEXTAUTH_URL the console does not know its own name, so it answers only to
 * loopback names: a DNS-rebinding page (Host: evil.example) cannot drive a developer's
 * console. Returns why a request is refused, or null.
 */
export function foreignHostReason(headers: Headers): string | null {
  if (env().nextAuthUrl) return null
  for (const name of ["host", "x-forwarded-host"]) {
    const value = headers.get(name)
    if (value !== null && !isLoopbackHost(value)) return `${name} ${value.slice(0, 100)} is not a loopback name and NEXTAUTH_URL is not set`
  }
  return null
}

export const FOREIGN_HOST_DETAIL =
  "This console answers only on localhost until NEXTAUTH_URL names the address it is served at."

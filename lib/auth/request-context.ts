import "server-only"
import { AsyncLocalStorage } from "node:async_hooks"

/** What next-auth's callbacks cannot see themselves: the request they run for. */
export interface AuthRequestContext {
  userAgent: string | null
  address: string | null
  /** The request's headers (the passkey sign-in's relying party is read from them). */
  headers?: Headers | null
}

const storage = new AsyncLocalStorage<AuthRequestContext>()

export function runWithAuthRequest<T>(context: AuthRequestContext, run: () => T): T {
  return storage.run(context, run)
}

export function authRequest(): AuthRequestContext {
  return storage.getStore() ?? { userAgent: null, address: null }
}

/**
 * The client's address: the last X-Forwarded-For entry (what the nearest proxy saw; Next
 * fills the header with the socket's address when there is none). A deployment behind a
 * balancer must have it overwrite the header, or a client can name any address.
 */
export function clientAddress(headers: Headers): string | null {
  const forwarded = headers.get("x-forwarded-for")
  if (!forwarded) return null
  const last = forwarded.split(",").pop()?.trim() ?? ""
  return last === "" ? null : last.slice(0, 100)
}

export function requestContextOf(req: Request): AuthRequestContext {
  return { userAgent: req.headers.get("user-agent")?.slice(0, 300) ?? null, address: clientAddress(req.headers), headers: req.headers }
}

import { type JWT, type JWTDecodeParams, decode } from "next-auth/jwt"

/**
 * next-auth's session-cookie decoder, remembering what it decoded. Decoding derives the
 * key (HKDF) and decrypts the cookie (A256GCM) on every request, about 15% of the CPU of
 * a console API request (npm run bench, --cpu-prof). A cookie is authenticated encryption
 * of fixed claims, so the same cookie under the same secret always decodes to the same
 * claims; only time changes the answer, so the claims' `exp` and `nbf` are checked on
 * every use exactly as the decoder checks them (jose, 15 s clock tolerance). Anything the
 * decoder refuses is never remembered. At most `MAX_ENTRIES` cookies are kept.
 */
const CLOCK_TOLERANCE_S = 15
const MAX_ENTRIES = 1000

interface Entry {
  secret: string | Buffer
  claims: JWT
}

const remembered = new Map<string, Entry>()

function sameSecret(a: string | Buffer, b: string | Buffer): boolean {
  if (typeof a === "string" && typeof b === "string") return a === b
  return Buffer.from(a).equals(Buffer.from(b))
}

/** The decoder's own time checks (jose: exp and nbf, with the tolerance next-auth passes). */
function validNow(claims: JWT, nowS: number): boolean {
  const { exp, nbf } = claims
  if (exp !== undefined && (typeof exp !== "number" || exp <= nowS - CLOCK_TOLERANCE_S)) return false
  if (nbf !== undefined && (typeof nbf !== "number" || nbf > nowS + CLOCK_TOLERANCE_S)) return false
  return true
}

export async function decodeSessionToken(params: JWTDecodeParams, now: () => number = Date.now): Promise<JWT | null> {
  const { token } = params
  if (!token) return null
  const key = `${params.salt ?? ""}\u0000${token}`
  const hit = remembered.get(key)
  const nowS = Math.floor(now() / 1000)
  if (hit && sameSecret(hit.secret, params.secret) && validNow(hit.claims, nowS)) return hit.claims
  remembered.delete(key)
  const claims = await decode(params)
  if (claims) {
    if (remembered.size >= MAX_ENTRIES) {
      const oldest = remembered.keys().next()
      if (!oldest.done) remembered.delete(oldest.value)
    }
    remembered.set(key, { secret: params.secret, claims: Object.freeze(claims) })
  }
  return claims
}

/** For tests. */
export function forgetDecodedSessions(): void {
  remembered.clear()
}

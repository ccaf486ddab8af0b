import "server-only"
import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from "node:crypto"
import { ZxcvbnFactory } from "@zxcvbn-ts/core"
import * as common from "@zxcvbn-ts/language-common"
import * as english from "@zxcvbn-ts/language-en"
import bcrypt from "bcryptjs"
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/lib/auth/password-rules"

/**
 * Staff passwords. New ones (set on accepting an invitation) are hashed with scrypt at
 * OWASP's parameters (N=2^17, r=8, p=1, 16-byte salt, 32-byte key), stored as
 * `scrypt$17$8$1$<salt>$<key>` (base64url). bcrypt hashes (CONSOLE_USERS) still verify,
 * and are replaced by an scrypt hash at the next successful sign-in.
 */

const SCRYPT = { logN: 17, r: 8, p: 1, keyLength: 32 } as const
const MAXMEM = 256 * 1024 * 1024

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH }
/** zxcvbn's score (0-4) a new password must reach: 3 is "safely unguessable: moderate protection from offline slow-hash scenario". */
export const PASSWORD_MIN_SCORE = 3

function scryptKey(password: string, salt: Buffer, params: { logN: number; r: number; p: number }, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFKC"), salt, keyLength, { N: 2 ** params.logN, r: params.r, p: params.p, maxmem: MAXMEM }, (error, key) => (error ? reject(error) : resolve(key)))
  })
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptKey(password, salt, SCRYPT, SCRYPT.keyLength)
  return `scrypt$${SCRYPT.logN}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString("base64url")}$${key.toString("base64url")}`
}

/** True when the hash is not of the current algorithm and parameters: replace it at the next successful sign-in. */
export function needsRehash(hash: string): boolean {
  return !hash.startsWith(`scrypt$${SCRYPT.logN}$${SCRYPT.r}$${SCRYPT.p}$`)
}

/** Checks a password against a stored hash: scrypt (this console's) or bcrypt (CONSOLE_USERS). False for anything unreadable. */
export async function verifyPasswordHash(password: string, hash: string): Promise<boolean> {
  if (hash.startsWith("$2")) return bcrypt.compare(password, hash).catch(() => false)
  const parts = hash.split("$")
  if (parts.length !== 6 || parts[0] !== "scrypt") return false
  const [logN, r, p] = parts.slice(1, 4).map(Number)
  if (!logN || !r || !p || logN > 20 || r > 16 || p > 4) return false
  const salt = Buffer.from(parts[4] ?? "", "base64url")
  const expected = Buffer.from(parts[5] ?? "", "base64url")
  if (salt.length < 8 || expected.length < 16) return false
  const key = await scryptKey(password, salt, { logN, r, p }, expected.length).catch(() => null)
  return key !== null && timingSafeEqual(key, expected)
}

let dummy: Promise<string> | undefined

/** Compared against when the email is unknown (or has no password), so both answers take the time of a real check. */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomUUID())
  return dummy
}

/** Two secrets compared in constant time (the demo password). */
export function sameSecret(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest()
  const y = createHash("sha256").update(b).digest()
  return timingSafeEqual(x, y)
}

let strength: ZxcvbnFactory | undefined

/**
 * Why a new password is refused (length, or zxcvbn's estimate with its own advice), or
 * null when it will do. `personal`: words the password must not lean on (the email).
 */
export function passwordWeakness(password: string, personal: readonly string[] = []): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `must be at least ${PASSWORD_MIN_LENGTH} characters`
  if (password.length > PASSWORD_MAX_LENGTH) return `must be at most ${PASSWORD_MAX_LENGTH} characters`
  strength ??= new ZxcvbnFactory({ dictionary: { ...common.dictionary, ...english.dictionary }, graphs: common.adjacencyGraphs, translations: english.translations })
  const result = strength.check(password, [...personal])
  if (result.score >= PASSWORD_MIN_SCORE) return null
  const advice = [result.feedback.warning, ...result.feedback.suggestions].filter((s): s is string => typeof s === "string" && s !== "").join(" ")
  return `is too easy to guess (strength ${result.score} of 4, needs ${PASSWORD_MIN_SCORE})${advice ? `: ${advice}` : ""}`
}

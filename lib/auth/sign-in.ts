import "server-only"
import { type AuthenticationResponseJSON, generateAuthenticationOptions, verifyAuthenticationResponse } from "@simplewebauthn/server"
import { and, eq } from "drizzle-orm"
import { dummyHash, hashPassword, needsRehash, sameSecret, verifyPasswordHash } from "@/lib/auth/passwords"
import type { Staff } from "@/lib/auth/roles"
import { activeRole, passkeyRoles, staffRow } from "@/lib/auth/staff-bootstrap"
import { type RelyingParty, challengeOf, issueChallenge, takeChallenge } from "@/lib/auth/webauthn"
import type { Db } from "@/lib/db/client"
import { consolePasskeys, consoleStaff } from "@/lib/db/schema"
import { env } from "@/lib/env"
import { log } from "@/lib/log"
import { assertionSchema } from "@/lib/schemas/approvals"

/**
 * The two ways in that the console checks itself (single sign-on is the provider's):
 * a password and a discoverable passkey, both against `console_staff`.
 */

/** Why a sign-in with the right secret is still refused: the form names it. */
export type SignInBlock = "disabled" | "passkey_required"

export type PasswordOutcome = { ok: true; staff: Staff } | { ok: false; why: "bad_credentials" } | { ok: false; why: SignInBlock; email: string }

/**
 * Checks an email and password. An unknown email, an invited one, or one with no password
 * costs one hash check too, so the answer's time does not tell who is on the staff. The
 * demo users (sandbox) use DEMO_PASSWORD until they have a password of their own. A bcrypt
 * hash that verifies is replaced by a current one.
 */
export async function checkPassword(db: Db, emailInput: string, password: string): Promise<PasswordOutcome> {
  const email = emailInput.trim().toLowerCase()
  const row = await staffRow(db, email)
  const config = env()
  let ok: boolean
  if (row?.source === "demo" && !row.passwordHash && config.mode === "sandbox") ok = sameSecret(password, config.demoPassword)
  else if (row?.passwordHash) ok = await verifyPasswordHash(password, row.passwordHash)
  else ok = await verifyPasswordHash(password, await dummyHash()).then(() => false)
  if (!row || !ok || row.status === "invited") return { ok: false, why: "bad_credentials" }
  if (row.passwordHash && needsRehash(row.passwordHash)) {
    const rehashed = await hashPassword(password)
    await db.update(consoleStaff).set({ passwordHash: rehashed }).where(and(eq(consoleStaff.email, email), eq(consoleStaff.passwordHash, row.passwordHash)))
    log.info("auth.password_rehashed", { algorithm: "scrypt" })
  }
  const role = activeRole(row)
  if (!role) return { ok: false, why: "disabled", email }
  if ((await passkeyRoles(db)).includes(role)) return { ok: false, why: "passkey_required", email }
  return { ok: true, staff: { email, role } }
}

/** The options (and one-time challenge) for a passkey sign-in: discoverable credentials, so no email is asked first. */
export async function signInOptions(db: Db, rp: RelyingParty, now = new Date()) {
  const challenge = await issueChallenge(db, { purpose: "sign_in", email: "", now })
  return generateAuthenticationOptions({
    rpID: rp.id,
    challenge: Buffer.from(challenge, "base64url"),
    allowCredentials: [],
    userVerification: "required",
    timeout: 120_000,
  })
}

export type PasskeyOutcome = { ok: true; staff: Staff; credentialId: string } | { ok: false; why: string; email: string | null; block?: SignInBlock }

/**
 * Verifies a passkey sign-in: its challenge one this console issued for a sign-in (taken
 * once, on any instance), its credential a registered passkey of an active staff member,
 * its signature, origin, RP ID, user verification and counter.
 */
export async function checkPasskey(db: Db, responseJson: string, rp: RelyingParty, now = new Date()): Promise<PasskeyOutcome> {
  let parsed: unknown
  try {
    parsed = JSON.parse(responseJson)
  } catch {
    return { ok: false, why: "the passkey answer is not JSON", email: null }
  }
  const assertion = assertionSchema.safeParse(parsed)
  if (!assertion.success) return { ok: false, why: "the passkey answer is not an assertion", email: null }
  const challenge = challengeOf(assertion.data.response.clientDataJSON)
  if (!challenge) return { ok: false, why: "it answers no challenge this console issued", email: null }
  const taken = await takeChallenge(db, challenge, { purpose: "sign_in", email: "", now })
  if (!taken.ok) return { ok: false, why: `its challenge is ${taken.why.replace("_", " ")}`, email: null }
  const [passkey] = await db.select().from(consolePasskeys).where(eq(consolePasskeys.id, assertion.data.id)).limit(1)
  if (!passkey) return { ok: false, why: "its credential is not a registered passkey", email: null }
  const email = passkey.staffEmail
  let verified
  try {
    verified = await verifyAuthenticationResponse({
      response: assertion.data as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")), counter: passkey.counter },
    })
  } catch (error) {
    return { ok: false, why: `it does not verify (${error instanceof Error ? error.message.slice(0, 160) : "unknown error"})`, email }
  }
  if (!verified.verified) return { ok: false, why: "its signature does not verify", email }
  const [used] = await db
    .update(consolePasskeys)
    .set({ counter: verified.authenticationInfo.newCounter, lastUsedAt: now })
    .where(and(eq(consolePasskeys.id, passkey.id), eq(consolePasskeys.counter, passkey.counter)))
    .returning({ id: consolePasskeys.id })
  if (!used) return { ok: false, why: "its passkey was used meanwhile (counter)", email }
  const row = await staffRow(db, email)
  const role = activeRole(row)
  if (!role) return { ok: false, why: "the passkey's owner is not an active staff member", email, block: row ? "disabled" : undefined }
  return { ok: true, staff: { email, role }, credentialId: passkey.id }
}

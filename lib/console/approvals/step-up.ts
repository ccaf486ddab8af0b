import "server-only"
import { createHash } from "node:crypto"
import { type AuthenticationResponseJSON, generateAuthenticationOptions, verifyAuthenticationResponse } from "@simplewebauthn/server"
import { and, eq } from "drizzle-orm"
import type { Staff } from "@/lib/auth/roles"
import { type RelyingParty, challengeOf, issueChallenge, takeChallenge } from "@/lib/auth/webauthn"
import type { Db } from "@/lib/db/client"
import { type ConsoleApproval, consolePasskeys, consolePolicy } from "@/lib/db/schema"
import { type StepUpRefusal, stepUpRefused, stepUpRequired } from "@/lib/problem"
import type { Assertion } from "@/lib/schemas/approvals"
import { formatCount } from "@/lib/format"

/**
 * Step-up for decisions (STEP_UP=webauthn): approve and reject need a fresh passkey
 * assertion whose one-time challenge was issued for a digest of exactly what is being
 * authorised. Without one the answer is 403 step_up_required with that challenge; an
 * assertion that does not fit is refused with a code naming why, before anything changes.
 */

export type DecisionAction = "approve" | "reject"

export interface StepUp {
  mode: "webauthn" | "off"
  rp: RelyingParty
  assertion?: Assertion | undefined
}

/** What a decision's audit entry records of its step-up: null credential when step-up is off. */
export interface StepUpProof {
  digest: string
  credentialId: string | null
  userVerified: boolean | null
}

/** The policy version in force when a decision is taken: its number (0: the defaults, never saved). */
export async function policyVersion(db: Db): Promise<number> {
  const [row] = await db.select({ version: consolePolicy.version }).from(consolePolicy).where(eq(consolePolicy.id, 1)).limit(1)
  return row?.version ?? 0
}

/** What is authorised, in a fixed order and form: the digest is the SHA-256 of this JSON. */
export function authorised(action: DecisionAction, approvals: ConsoleApproval[], version: number) {
  return {
    action,
    requests: [...approvals]
      .sort((a, b) => a.intentId.localeCompare(b.intentId))
      .map((a) => ({
        id: a.intentId,
        market: a.market,
        side: a.side,
        amount: a.sizeAmount,
        currency: a.sizeCurrency,
        limit_price: a.limitPrice,
        // The version the request was judged under (its tier and limits); null before versions.
        judged_under: a.policyVersion,
        approvals_required: a.requiredApprovals,
      })),
    policy_version: version,
  }
}

export type Authorised = ReturnType<typeof authorised>

export function digestOf(what: unknown): string {
  return createHash("sha256").update(JSON.stringify(what)).digest("hex")
}

/** What a decision on `approvals` authorises under the policy in force, and its digest. */
export async function describeDecision(db: Db, action: DecisionAction, approvals: ConsoleApproval[]): Promise<{ what: Authorised; digest: string }> {
  const what = authorised(action, approvals, await policyVersion(db))
  return { what, digest: digestOf(what) }
}

/** What the passkey is asked for, in words, from what it authorises (an order, a session's end, a policy change, a decision on one or several requests). */
export function whatNeedsIt(what: unknown): string {
  const authorised = (what ?? {}) as { action?: unknown; requests?: unknown[] }
  const count = Array.isArray(authorised.requests) ? authorised.requests.length : 1
  switch (authorised.action) {
    case "place_order":
      return "This order"
    case "end_session":
      return "Ending this person's session"
    case "policy_change":
      return "This policy change"
    case "reject_policy_change":
      return "Rejecting this policy change"
    case "approve":
      return count > 1 ? `Approving these ${formatCount(count)} requests` : "Approving this request"
    case "reject":
      return "Rejecting this request"
    default:
      return "This decision"
  }
}

const CHALLENGE_WHY: Record<"unknown" | "replayed" | "expired" | "wrong_purpose" | "not_yours", [StepUpRefusal, string]> = {
  unknown: ["step_up_invalid", "its challenge is not one this console issued"],
  replayed: ["step_up_replayed", "its challenge was already used: an assertion authorises one decision once"],
  expired: ["step_up_expired", "its challenge expired (2 minutes); ask for a new one"],
  wrong_purpose: ["step_up_invalid", "its challenge was not issued for a decision"],
  not_yours: ["step_up_foreign_credential", "its challenge was issued to someone else"],
}

function refuse(code: StepUpRefusal, why: string): never {
  throw stepUpRefused(code, `The passkey assertion is refused: ${why}. Nothing changed.`)
}

/**
 * Checks step-up for a decision by `staff` (described by describeDecision, or any other
 * `what` with its digestOf, such as ending someone's session): the proof to record, or a
 * thrown 403 (step_up_required with the challenge to sign, or why the assertion given is refused).
 * Without `stepUp` (tests of other rules) it is off.
 */
export async function checkStepUp(db: Db, staff: Staff, decision: { what: unknown; digest: string }, stepUp: StepUp | undefined, now = new Date()): Promise<StepUpProof> {
  const { what, digest } = decision
  if (!stepUp || stepUp.mode === "off") return { digest, credentialId: null, userVerified: null }
  const email = staff.email.toLowerCase()
  const assertion = stepUp.assertion
  if (!assertion) {
    const passkeys = await db.select({ id: consolePasskeys.id, transports: consolePasskeys.transports }).from(consolePasskeys).where(eq(consolePasskeys.staffEmail, email))
    const challenge = await issueChallenge(db, { purpose: "step_up", email, digest, now })
    const options = await generateAuthenticationOptions({
      rpID: stepUp.rp.id,
      challenge: Buffer.from(challenge, "base64url"),
      allowCredentials: passkeys.map((p) => ({ id: p.id, transports: p.transports as ("internal" | "usb" | "nfc" | "ble" | "hybrid")[] })),
      userVerification: "required",
      timeout: 120_000,
    })
    const needs = `${whatNeedsIt(what)} needs your passkey`
    const detail =
      passkeys.length === 0
        ? `${needs}, and you have none: register one on your account page (/account).`
        : `${needs}: sign the challenge (2 minutes) and send the assertion as step_up.`
    throw stepUpRequired(detail, { options, digest, authorises: what, passkeys: passkeys.length })
  }
  const challenge = challengeOf(assertion.response.clientDataJSON)
  if (!challenge) refuse("step_up_invalid", "it answers no challenge this console issued")
  const taken = await takeChallenge(db, challenge, { purpose: "step_up", email, now })
  if (!taken.ok) refuse(...CHALLENGE_WHY[taken.why])
  if (taken.digest !== digest) refuse("step_up_digest_mismatch", "it was given for another decision (its digest is not this one's)")
  const [passkey] = await db.select().from(consolePasskeys).where(eq(consolePasskeys.id, assertion.id)).limit(1)
  if (!passkey) refuse("step_up_invalid", "its credential is not a registered passkey")
  if (passkey.staffEmail !== email) refuse("step_up_foreign_credential", "its credential is another person's passkey")
  let result
  try {
    result = await verifyAuthenticationResponse({
      response: assertion as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: stepUp.rp.origin,
      expectedRPID: stepUp.rp.id,
      requireUserVerification: true,
      credential: { id: passkey.id, publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")), counter: passkey.counter },
    })
  } catch (error) {
    const message = error instanceof Error ? error.message : "unknown error"
    if (/user verification required/i.test(message)) refuse("step_up_not_user_verified", "the authenticator did not verify the user (PIN or biometrics)")
    refuse("step_up_invalid", `it does not verify (${message.slice(0, 160)})`)
  }
  if (!result.verified) refuse("step_up_invalid", "its signature does not verify")
  // The counter moves forward once: of two uses of one assertion, one updates it.
  const [used] = await db
    .update(consolePasskeys)
    .set({ counter: result.authenticationInfo.newCounter, lastUsedAt: now })
    .where(and(eq(consolePasskeys.id, passkey.id), eq(consolePasskeys.counter, passkey.counter)))
    .returning({ id: consolePasskeys.id })
  if (!used) refuse("step_up_replayed", "its passkey was used meanwhile (counter)")
  return { digest, credentialId: passkey.id, userVerified: result.authenticationInfo.userVerified }
}

import "server-only"
import { createHash } from "node:crypto"
import { type RegistrationResponseJSON, generateRegistrationOptions, verifyRegistrationResponse } from "@simplewebauthn/server"
import { and, asc, count, eq } from "drizzle-orm"
import { z } from "zod"
import type { Staff } from "@/lib/auth/roles"
import { type RelyingParty, challengeOf, issueChallenge, takeChallenge } from "@/lib/auth/webauthn"
import { notifyPasskeyAdded } from "@/lib/console/notify/account"
import { boundedTransaction } from "@/lib/db/bounded"
import type { Db } from "@/lib/db/client"
import { type ConsolePasskey, consolePasskeys } from "@/lib/db/schema"
import { notFound, passkeyInvalid } from "@/lib/problem"

/**
 * Staff passkeys: registered on the account page (one or more each, named by their
 * owner), removed by their owner; admins see who has one. Step-up (lib/auth/step-up.ts)
 * asks for one of them.
 */

export const passkeyNameSchema = z.string().trim().min(1, "must not be empty").max(60, "at most 60 characters")

export const registerBodySchema = z.strictObject({
  name: passkeyNameSchema,
  /** What @simplewebauthn/browser's startRegistration answered. */
  response: z.looseObject({ id: z.string().max(1024), rawId: z.string().max(1024), type: z.literal("public-key"), response: z.looseObject({ clientDataJSON: z.string().max(4096), attestationObject: z.string().max(16_384) }) }),
})
export const renameBodySchema = z.strictObject({ name: passkeyNameSchema })

export interface PasskeyView {
  id: string
  name: string
  created_at: string
  last_used_at: string | null
  transports: string[]
}

function view(row: ConsolePasskey): PasskeyView {
  return { id: row.id, name: row.name, created_at: row.createdAt.toISOString(), last_used_at: row.lastUsedAt?.toISOString() ?? null, transports: row.transports }
}

export async function listPasskeys(db: Db, email: string): Promise<PasskeyView[]> {
  const rows = await db.select().from(consolePasskeys).where(eq(consolePasskeys.staffEmail, email.toLowerCase())).orderBy(asc(consolePasskeys.createdAt))
  return rows.map(view)
}

/** How many passkeys each person has (those with none are absent). */
export async function passkeyCounts(db: Db): Promise<Map<string, number>> {
  const rows = await db.select({ email: consolePasskeys.staffEmail, n: count() }).from(consolePasskeys).groupBy(consolePasskeys.staffEmail)
  return new Map(rows.map((r) => [r.email, Number(r.n)]))
}

/** The registration ceremony's options: a fresh challenge kept for this person, their passkeys excluded. */
export async function registrationOptions(db: Db, staff: Staff, rp: RelyingParty, now = new Date()) {
  const email = staff.email.toLowerCase()
  const existing = await listPasskeys(db, email)
  const challenge = await issueChallenge(db, { purpose: "register", email, now })
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: email,
    userID: new Uint8Array(createHash("sha256").update(`console staff ${email}`).digest()),
    challenge: Buffer.from(challenge, "base64url"),
    attestationType: "none",
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
    timeout: 120_000,
  })
}

type AuthenticatorTransportFuture = "ble" | "cable" | "hybrid" | "internal" | "nfc" | "smart-card" | "usb"

const REGISTER_WHY = {
  unknown: "its challenge is not one this console issued",
  replayed: "its challenge was already used",
  expired: "its challenge expired (2 minutes)",
  wrong_purpose: "its challenge was not issued for a registration",
  not_yours: "its challenge was issued to someone else",
} as const

/** Verifies a registration response against its one-time challenge, origin and RP ID, and keeps the passkey. */
export async function registerPasskey(db: Db, staff: Staff, rp: RelyingParty, body: z.infer<typeof registerBodySchema>, now = new Date()): Promise<PasskeyView> {
  const email = staff.email.toLowerCase()
  const challenge = challengeOf(body.response.response.clientDataJSON)
  if (!challenge) throw passkeyInvalid("The registration holds no challenge this console issued.")
  const taken = await takeChallenge(db, challenge, { purpose: "register", email, now })
  if (!taken.ok) throw passkeyInvalid(`The registration is refused: ${REGISTER_WHY[taken.why]}.`)
  let verified
  try {
    verified = await verifyRegistrationResponse({
      response: body.response as unknown as RegistrationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    })
  } catch (error) {
    throw passkeyInvalid(`The registration does not verify: ${error instanceof Error ? error.message.slice(0, 200) : "unknown error"}.`)
  }
  if (!verified.verified || !verified.registrationInfo) throw passkeyInvalid("The registration does not verify.")
  const credential = verified.registrationInfo.credential
  // The passkey and the notification to its owner are kept together or not at all.
  const row = await boundedTransaction(db, async (tx) => {
    const [added] = await tx
      .insert(consolePasskeys)
      .values({
        id: credential.id,
        staffEmail: email,
        name: body.name,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        counter: credential.counter,
        transports: credential.transports ?? [],
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning()
    if (added) await notifyPasskeyAdded(tx, { id: added.id, email, name: added.name }, now)
    return added
  })
  if (!row) throw passkeyInvalid("This passkey is already registered.")
  return view(row)
}

export async function renamePasskey(db: Db, staff: Staff, id: string, name: string): Promise<PasskeyView> {
  const [row] = await db
    .update(consolePasskeys)
    .set({ name })
    .where(and(eq(consolePasskeys.id, id), eq(consolePasskeys.staffEmail, staff.email.toLowerCase())))
    .returning()
  if (!row) throw notFound("You have no passkey with this id.")
  return view(row)
}

export async function removePasskey(db: Db, staff: Staff, id: string): Promise<void> {
  const [row] = await db
    .delete(consolePasskeys)
    .where(and(eq(consolePasskeys.id, id), eq(consolePasskeys.staffEmail, staff.email.toLowerCase())))
    .returning({ id: consolePasskeys.id })
  if (!row) throw notFound("You have no passkey with this id.")
}

import "server-only"
import { randomBytes } from "node:crypto"
import { and, eq, isNull, lt, sql } from "drizzle-orm"
import type { Db } from "@/lib/db/client"
import { consoleWebauthnChallenges } from "@/lib/db/schema"
import { env } from "@/lib/env"

/**
 * What WebAuthn ceremonies are bound to: the relying party (the host of the console's
 * public URL, NEXTAUTH_URL; without it, in sandbox mode, the loopback host the request
 * came to: browsers refuse an IP address, so development uses `localhost`), the origin
 * a response must come from, and one-time challenges kept in the database (every
 * instance sees them), each good for two minutes and one ceremony.
 */

export const CHALLENGE_TTL_MS = 2 * 60_000
/** Used and expired challenges are kept this long, so a replay is named as one, then purged. */
const KEEP_MS = 24 * 3600_000

export interface RelyingParty {
  id: string
  name: string
  origin: string
}

export function relyingParty(headers: Headers, fallbackUrl?: string): RelyingParty {
  const configured = env().nextAuthUrl
  let origin: string
  if (configured) origin = new URL(configured).origin
  else {
    const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? (fallbackUrl ? new URL(fallbackUrl).host : "localhost")
    const proto = headers.get("x-forwarded-proto") ?? (fallbackUrl ? new URL(fallbackUrl).protocol.replace(/:$/, "") : "http")
    origin = `${proto}://${host}`
  }
  return { id: new URL(origin).hostname, name: "Treasury console", origin }
}

export type ChallengePurpose = "register" | "step_up" | "sign_in"

/** A fresh challenge (base64url, 32 random bytes) kept for `email`, bound to `digest` for step-up. */
export async function issueChallenge(db: Db, input: { purpose: ChallengePurpose; email: string; digest?: string; now?: Date }): Promise<string> {
  const now = input.now ?? new Date()
  const challenge = randomBytes(32).toString("base64url")
  await db.delete(consoleWebauthnChallenges).where(lt(consoleWebauthnChallenges.expiresAt, new Date(now.getTime() - KEEP_MS)))
  await db.insert(consoleWebauthnChallenges).values({
    challenge,
    purpose: input.purpose,
    staffEmail: input.email.toLowerCase(),
    digest: input.digest ?? null,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CHALLENGE_TTL_MS),
  })
  return challenge
}

export type TakenChallenge =
  | { ok: true; email: string; digest: string | null }
  | { ok: false; why: "unknown" | "replayed" | "expired" | "wrong_purpose" | "not_yours" }

/**
 * Takes a challenge for one ceremony: marks it used in one conditional update, so of two
 * answers to it (on any instances) one gets it and the other is told it was replayed.
 */
export async function takeChallenge(db: Db, challenge: string, expect: { purpose: ChallengePurpose; email: string; now?: Date }): Promise<TakenChallenge> {
  const now = expect.now ?? new Date()
  const [row] = await db
    .update(consoleWebauthnChallenges)
    .set({ usedAt: now })
    .where(and(eq(consoleWebauthnChallenges.challenge, challenge), isNull(consoleWebauthnChallenges.usedAt)))
    .returning()
  if (!row) {
    const [seen] = await db.select({ n: sql<number>`1` }).from(consoleWebauthnChallenges).where(eq(consoleWebauthnChallenges.challenge, challenge))
    return { ok: false, why: seen ? "replayed" : "unknown" }
  }
  if (row.purpose !== expect.purpose) return { ok: false, why: "wrong_purpose" }
  if (row.staffEmail !== expect.email.toLowerCase()) return { ok: false, why: "not_yours" }
  if (row.expiresAt.getTime() <= now.getTime()) return { ok: false, why: "expired" }
  return { ok: true, email: row.staffEmail, digest: row.digest }
}

/** The challenge a response answers, read from its clientDataJSON (checked again by the library). */
export function challengeOf(clientDataJSON: unknown): string | null {
  if (typeof clientDataJSON !== "string" || clientDataJSON.length > 4096) return null
  try {
    const parsed = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown }
    return typeof parsed.challenge === "string" && /^[A-Za-z0-9_-]{16,128}$/.test(parsed.challenge) ? parsed.challenge : null
  } catch {
    return null
  }
}

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { registerPasskey, registrationOptions } from "@/lib/auth/passkeys"
import type { Staff } from "@/lib/auth/roles"
import { createSession, listAuthEvents, resolveSession } from "@/lib/auth/sessions"
import type { RelyingParty } from "@/lib/auth/webauthn"
import type { StepUp } from "@/lib/console/approvals/step-up"
import { steppedUpToEnd } from "@/lib/console/session-step-up"
import type { Database } from "@/lib/db/client"
import { problemOf } from "@/test/approvals"
import { type SoftCredential, assert, register } from "@/test/authenticator"
import { createTestDatabase, testDrivers } from "@/test/db"

const ORIGIN = "http://localhost:3000"
const rp: RelyingParty = { id: "localhost", name: "Treasury console", origin: ORIGIN }
const admin: Staff = { email: "admin@example.com", role: "admin" }
const trader: Staff = { email: "trader@example.com", role: "trader" }

describe.each(testDrivers())("step-up to end someone else's session, on %s", (driver) => {
  let database: Database
  let key: SoftCredential
  beforeAll(async () => {
    database = await createTestDatabase(driver)
    const options = await registrationOptions(database.db, admin, rp)
    const { credential, response } = register(options, ORIGIN)
    await registerPasskey(database.db, admin, rp, { name: "laptop", response })
    key = credential
  })
  afterAll(async () => {
    await database?.close()
  })
  const on = (assertion?: ReturnType<typeof assert>): StepUp => ({ mode: "webauthn", rp, assertion })
  const session = (who: Staff) => createSession(database.db, { email: who.email, role: who.role, provider: "credentials", userAgent: null, address: null })

  it("without an assertion: 403 step_up_required bound to that session and whose it is; the session stays and the refusal is on the sign-in events", async () => {
    const id = await session(trader)
    const asked = await steppedUpToEnd(database.db, admin, id, on()).catch((e: unknown) => e)
    expect(problemOf(asked)).toMatchObject({ status: 403, code: "step_up_required", meta: { step_up: { authorises: { action: "end_session", session_id: id, staff_email: trader.email } } } })
    expect(await resolveSession(database.db, id)).not.toBeNull()
    const events = await listAuthEvents(database.db, { email: trader.email })
    expect(events.find((e) => e.kind === "session_end_refused")).toMatchObject({ actor: admin.email, detail: { code: "step_up_required" } })
  })

  it("with the admin's passkey over that challenge it may go on; an assertion for another session is refused (digest)", async () => {
    const id = await session(trader)
    const other = await session(trader)
    const challengeFor = async (sessionId: string) => {
      const asked = await steppedUpToEnd(database.db, admin, sessionId, on()).catch((e: unknown) => e)
      return (problemOf(asked).meta?.step_up as { options: { challenge: string } }).options.challenge
    }
    const forOther = assert(key, await challengeFor(other), ORIGIN)
    const mismatch = await steppedUpToEnd(database.db, admin, id, on(forOther)).catch((e: unknown) => e)
    expect(problemOf(mismatch)).toMatchObject({ status: 403, code: "step_up_digest_mismatch" })
    await expect(steppedUpToEnd(database.db, admin, id, on(assert(key, await challengeFor(id), ORIGIN)))).resolves.toBeUndefined()
  })

  it("one's own session, or one that is gone, needs no step-up (the route then ends it, or answers 404)", async () => {
    const own = await session(admin)
    await expect(steppedUpToEnd(database.db, admin, own, on())).resolves.toBeUndefined()
    await expect(steppedUpToEnd(database.db, admin, "00000000-0000-4000-8000-000000000000", on())).resolves.toBeUndefined()
  })

  it("with step-up off, ending someone else's session needs none", async () => {
    const id = await session(trader)
    await expect(steppedUpToEnd(database.db, admin, id, { mode: "off", rp })).resolves.toBeUndefined()
  })
})

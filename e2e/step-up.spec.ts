import { randomUUID } from "node:crypto"
import { type APIRequestContext, type Browser, type Page, expect, test } from "@playwright/test"
import { DEMO_PASSWORD, type Role, emailOf, signIn } from "./helpers"
import { ServerSessions } from "./server-sessions"
import { withPlatformAuthenticator } from "./authenticator"

// Passkeys and step-up through the UI, on the server started with STEP_UP=webauthn and
// browsed at http://localhost:… (playwright.config.ts: WebAuthn refuses an IP address as
// RP ID). Chromium's virtual authenticator (CDP WebAuthn) stands in for a platform
// passkey with user verification: the admin registers one on /account, then approves a
// trader's request on /approvals, the server asking for the passkey and checking it.

let origin = ""
let sessions: ServerSessions

test.beforeAll(({ baseURL }) => {
  origin = baseURL ?? ""
  sessions = new ServerSessions(origin)
})

async function apiAs(browser: Browser, role: Role): Promise<APIRequestContext> {
  return sessions.api(browser, role)
}

/** A page with a virtual platform authenticator that verifies its user (as Touch ID or Windows Hello would). */
async function pageWithAuthenticator(browser: Browser, role: Role): Promise<Page> {
  const context = await sessions.context(browser, role)
  return withPlatformAuthenticator(context)
}

/** A trader's 20,000 USD BUY of BTC at a quote the console served them: over the threshold, so it waits. */
async function traderAsks(trader: APIRequestContext, amount = "20000.00"): Promise<{ id: string; refId: string }> {
  const { items: profiles } = (await (await trader.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.find((p) => p.nickname === "Treasury")!
  const { items: quotes } = (await (await trader.get("/api/quotes?markets=BTCUSD")).json()) as { items: { id: string; market: string; side: string; price: string }[] }
  const quote = quotes.find((q) => q.side === "BUY")!
  const refId = randomUUID()
  const res = await trader.post(`/api/profiles/${profile.id}/quote-executions`, {
    data: { quote_id: quote.id, quote_amount: amount, ref_id: refId, reviewed_quote: { market: quote.market, side: quote.side, price: quote.price } },
  })
  expect(res.status(), await res.text()).toBe(202)
  return { id: ((await res.json()) as { id: string }).id, refId }
}

test("an admin registers a passkey on /account, approves a trader's request with it, then three at once with one confirmation; the trail records the credential, user verification and digest (listed on /audit); ending someone else's session asks for the passkey too", async ({ browser }) => {
  const page = await pageWithAuthenticator(browser, "admin")
  await page.goto("/account")
  await expect(page.getByTestId("no-passkeys")).toBeVisible()
  await page.getByTestId("new-passkey-name").fill("E2E virtual key")
  await page.getByTestId("add-passkey").click()
  const row = page.getByTestId("passkey-row")
  await expect(row).toHaveCount(1)
  await expect(row.getByTestId("passkey-name")).toHaveValue("E2E virtual key")
  const { items: passkeys } = (await (await page.request.get("/api/account/passkeys")).json()) as { items: { id: string }[] }
  const credentialId = passkeys[0]!.id

  // Without an assertion the API refuses the decision and names the challenge to sign.
  const trader = await apiAs(browser, "trader")
  const { id, refId } = await traderAsks(trader)
  const admin = await apiAs(browser, "admin")
  const bare = await admin.post(`/api/approvals/${id}/approve`, { data: {} })
  expect(bare.status()).toBe(403)
  expect(bare.headers()["content-type"]).toContain("application/problem+json")
  const problem = (await bare.json()) as { code: string; meta: { step_up: { digest: string; options: { rpId: string } } } }
  expect(problem).toMatchObject({ code: "step_up_required", meta: { step_up: { options: { rpId: "localhost" } } } })

  // Through the UI: Approve → the server asks for the passkey → the authenticator signs → approved and placed.
  await page.goto("/approvals")
  const item = page.locator(`[data-testid=approval-item][data-ref-id="${refId}"]`)
  await expect(item.getByTestId("approval-state")).toHaveText("Waiting for approval")
  await item.getByTestId("approve").click()
  await expect(item.getByTestId("approval-state")).toHaveText("Approved", { timeout: 20_000 })
  await expect(item.getByTestId("approval-outcome")).toContainText("placed")

  const { items: decisions } = (await (await admin.get(`/api/audit/decisions?request_id=${id}`)).json()) as {
    items: { outcome: string; credential_id: string | null; user_verified: boolean | null; digest: string | null }[]
  }
  expect(decisions[0]).toMatchObject({ outcome: "done", credential_id: credentialId, user_verified: true, digest: problem.meta.step_up.digest })
  expect(decisions.slice(1).every((d) => d.outcome === "step_up_required")).toBe(true)

  // Bulk approve: three requests selected, one passkey confirmation over the list, all three placed.
  const three = [await traderAsks(trader, "12000.00"), await traderAsks(trader, "12500.00"), await traderAsks(trader, "13000.00")]
  await page.goto("/approvals")
  for (const { refId: ref } of three) {
    const card = page.locator(`[data-testid=approval-item][data-ref-id="${ref}"]`)
    await expect(card.getByTestId("approval-state")).toHaveText("Waiting for approval")
    await card.getByTestId("bulk-select").check()
  }
  await expect(page.getByTestId("bulk-approve")).toHaveText("Approve selected (3)")
  // The list's decision is written when the whole bulk request is done, after the cards
  // (pushed one by one) may already say Approved: its answer is waited for before the trail is read.
  const bulkDone = page.waitForResponse((r) => r.url().endsWith("/api/approvals/bulk-approve") && r.request().method() === "POST" && r.status() === 200, { timeout: 30_000 })
  await page.getByTestId("bulk-approve").click()
  for (const { refId: ref } of three) {
    await expect(page.locator(`[data-testid=approval-item][data-ref-id="${ref}"]`).getByTestId("approval-state")).toHaveText("Approved", { timeout: 20_000 })
  }
  await bulkDone
  const { items: all } = (await (await admin.get("/api/audit/decisions?limit=20")).json()) as { items: { outcome: string; request_ids: string[]; credential_id: string | null }[] }
  const list = all.find((d) => d.outcome === "done" && d.request_ids.length === 3)
  expect(list?.request_ids.sort()).toEqual(three.map((r) => r.id).sort())
  expect(list?.credential_id).toBe(credentialId)

  // Admins see who has a passkey.
  await page.goto("/admin/sessions")
  const mine = page.getByTestId("session-row").filter({ hasText: emailOf("admin") }).first()
  await expect(mine.getByTestId("session-passkeys")).toHaveText("1")

  // Ending someone else's session needs the passkey too: End session asks the server, the
  // authenticator signs the challenge bound to that session, and the session ends.
  const marker = `e2e-end-session-${randomUUID()}`
  const viewerContext = await browser.newContext({ baseURL: origin, userAgent: marker })
  const viewerPage = await viewerContext.newPage()
  await viewerPage.goto("/sign-in")
  await signIn(viewerPage, emailOf("viewer"), DEMO_PASSWORD)
  await expect(viewerPage.getByTestId("staff-role")).toHaveText("viewer")
  await page.goto("/admin/sessions")
  const theirs = page.getByTestId("session-row").filter({ hasText: marker })
  await expect(theirs).toHaveCount(1)
  await theirs.getByRole("button", { name: `End session of ${emailOf("viewer")}` }).click()
  await expect(theirs).toHaveCount(0, { timeout: 20_000 })
  expect((await viewerPage.request.get("/api/me")).status()).toBe(401)
  await viewerContext.close()
  // The decision trail on /audit lists the approvals above with their passkey and outcome.
  await page.goto("/audit?view=decisions")
  await expect(page.getByTestId("decision-entry").filter({ has: page.locator(`[data-value="${id}"]`) }).first()).toBeVisible()
  await expect(page.locator(`[data-testid=decision-entry][data-outcome=done]`).first()).toBeVisible()
  await Promise.all([trader.dispose(), admin.dispose()])
})

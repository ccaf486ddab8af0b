import { type APIRequestContext, type Browser, type Page, expect, test } from "@playwright/test"
import { signIn } from "./helpers"
import { ServerSessions } from "./server-sessions"
import { withPlatformAuthenticator } from "./authenticator"

// The policy under four eyes (issue 33), through the UI, on the server started with
// STEP_UP=webauthn and a second admin (playwright.config.ts: admin2@example.com in its
// CONSOLE_USERS), browsed at http://localhost:… (WebAuthn refuses an IP address as RP ID).
// The demo admin proposes a change: it waits, and they cannot approve it themselves. The
// second admin registers a passkey (Chromium's virtual authenticator over CDP) and approves
// it with that passkey: the change applies as the next version.

const ADMIN2 = { email: "admin2@example.com", password: "demo-password-admin2" }
const FIELD = "role_limits.trader.per_order.USD"

let origin = ""
let sessions: ServerSessions

test.beforeAll(({ baseURL }) => {
  origin = baseURL ?? ""
  sessions = new ServerSessions(origin)
})

/** The second admin, signed in through the form, on a browser with a platform authenticator that verifies its user. */
async function admin2WithAuthenticator(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin })
  const page = await withPlatformAuthenticator(context)
  await page.goto("/sign-in")
  await signIn(page, ADMIN2.email, ADMIN2.password)
  // A password sign-in (bcrypt) on a busy machine may take a while.
  await expect(page.getByTestId("staff-email")).toHaveText(ADMIN2.email, { timeout: 30_000 })
  await expect(page.getByTestId("staff-role")).toHaveText("admin")
  return page
}

async function policyNow(api: APIRequestContext): Promise<{ version: number; perOrder: string }> {
  const res = await api.get("/api/policy")
  expect(res.status(), await res.text()).toBe(200)
  const view = (await res.json()) as { version: number; policy: { role_limits: { trader?: { per_order: Record<string, string> } } } }
  return { version: view.version, perOrder: view.policy.role_limits.trader?.per_order.USD ?? "" }
}

/** "50000.00" as the policy page shows it: "50,000.00". */
function shown(amount: string): string {
  const [whole = "0", fraction = "00"] = amount.split(".")
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${fraction.padEnd(2, "0")}`
}

test("admin A proposes a policy change: it waits and A cannot approve it; admin B registers a passkey and approves it with the passkey: applied, the new version shown, both on the trail", async ({ browser }) => {
  // Two admins, two sign-ins, a passkey registered and used: three times the usual time on a busy machine.
  test.slow()
  const adminApi = await sessions.api(browser, "admin")
  // A change left waiting by an earlier run of this spec is the demo admin's: withdrawn first.
  const left = (await (await adminApi.get("/api/policy/changes")).json()) as { pending: { id: string; proposed_by: string } | null }
  if (left.pending?.proposed_by === "admin@example.com") expect((await adminApi.post(`/api/policy/changes/${left.pending.id}/withdraw`, { data: {} })).status()).toBe(200)
  const before = await policyNow(adminApi)
  const next = before.perOrder === "40000.00" ? "45000.00" : "40000.00"

  // Admin A (the demo admin) proposes through the form.
  const a = await sessions.page(browser, "admin")
  await a.goto("/approvals")
  const section = a.getByTestId("policy-section")
  await section.getByTestId("edit-policy").click()
  const form = section.getByRole("form", { name: "Approval policy" })
  await form.getByLabel("Traders per order, USD").fill(next)
  await form.getByRole("button", { name: "Review changes" }).click()
  await section.getByTestId("apply-policy").click()

  // Pending: shown as a diff through the one formatter; nothing applied yet.
  const pendingA = section.getByTestId("pending-policy-change")
  await expect(pendingA).toBeVisible()
  const diffRow = pendingA.locator(`[data-testid=policy-change][data-field="${FIELD}"]`)
  await expect(diffRow).toContainText(shown(before.perOrder))
  await expect(diffRow).toContainText(shown(next))
  const id = (await pendingA.getAttribute("data-change-id")) ?? ""
  expect(id).toMatch(/^[0-9a-f-]{36}$/)
  expect(await policyNow(adminApi)).toEqual(before)

  // A self-approval is refused: the page offers A only Withdraw, and the API says no (403 not_allowed), changing nothing.
  await expect(pendingA.getByTestId("policy-change-mine")).toContainText("another admin must approve it")
  await expect(pendingA.getByTestId("policy-change-approve")).toHaveCount(0)
  await expect(pendingA.getByTestId("policy-change-withdraw")).toBeVisible()
  const self = await a.request.post(`/api/policy/changes/${id}/approve`, { headers: { origin }, data: {} })
  expect(self.status()).toBe(403)
  expect(await self.json()).toMatchObject({ code: "not_allowed" })
  expect(await policyNow(adminApi)).toEqual(before)
  // Editing waits while a change does.
  await expect(section.getByTestId("edit-policy")).toHaveCount(0)

  // Admin B registers a passkey, then approves: the console asks for it, the authenticator signs the change's digest.
  const b = await admin2WithAuthenticator(browser)
  await b.goto("/account")
  await b.getByTestId("new-passkey-name").fill("Admin 2 virtual key")
  await b.getByTestId("add-passkey").click()
  await expect(b.getByTestId("passkey-row")).toHaveCount(1)
  const { items: passkeys } = (await (await b.request.get("/api/account/passkeys")).json()) as { items: { id: string }[] }

  await b.goto("/approvals")
  const pendingB = b.getByTestId("pending-policy-change")
  await expect(pendingB.getByTestId("policy-change-maker")).toHaveText("admin@example.com")
  await expect(pendingB.locator(`[data-testid=policy-change][data-field="${FIELD}"]`)).toContainText(shown(next))
  await pendingB.getByTestId("policy-change-approve").click()
  await expect(b.getByTestId("pending-policy-change")).toHaveCount(0, { timeout: 20_000 })
  await expect(b.getByTestId("policy-version")).toHaveText(`Version ${before.version + 1}`)
  await expect(b.getByTestId("policy-change-row").first()).toHaveAttribute("data-state", "APPLIED")
  expect(await policyNow(adminApi)).toEqual({ version: before.version + 1, perOrder: next })

  // On the trail: A's refused self-approval and B's approval with the passkey and user verification.
  const { items: decisions } = (await (await adminApi.get(`/api/audit/decisions?request_id=${id}`)).json()) as {
    items: { action: string; staff_email: string; outcome: string; credential_id: string | null; user_verified: boolean | null }[]
  }
  expect(decisions[0]).toMatchObject({ action: "policy_approve", staff_email: ADMIN2.email, outcome: "done", credential_id: passkeys[0]!.id, user_verified: true })
  expect(decisions).toContainEqual(expect.objectContaining({ action: "policy_approve", staff_email: "admin@example.com", outcome: "not_allowed" }))
  expect(decisions.at(-1)).toMatchObject({ action: "policy_propose", staff_email: "admin@example.com", outcome: "done" })

  // The audit table reads the change through the same formatter, with who approved it.
  await a.goto("/audit?operation=update_policy")
  const row = a.getByTestId("audit-row").first()
  await expect(row.getByTestId("audit-policy-diff")).toContainText(`${FIELD}: ${shown(before.perOrder)} → ${shown(next)}`)
  await expect(row.getByTestId("policy-approved-by")).toContainText(`approved by ${ADMIN2.email}`)
  await adminApi.dispose()
})

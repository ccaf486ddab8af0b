import { randomUUID } from "node:crypto"
import { type Browser, type Page, expect, test } from "@playwright/test"
import { expectNoSeriousA11yViolations } from "./axe"
import { ServerSessions } from "./server-sessions"
import { withPlatformAuthenticator } from "./authenticator"

// Staff managed in the console (issue 35), on the server browsed at http://localhost:…
// (playwright.config.ts: WebAuthn refuses an IP address as RP ID). An admin invites a
// trader; the trader accepts with a password and a passkey (Chromium's virtual
// authenticator over CDP), signs in with the passkey and trades; the admin demotes them
// (their next request is a viewer's), then disables them (their session ends at once).

let origin = ""
let sessions: ServerSessions

test.beforeAll(({ baseURL }) => {
  origin = baseURL ?? ""
  sessions = new ServerSessions(origin)
})

/** A signed-out page with a virtual platform authenticator holding discoverable credentials. */
async function pageWithAuthenticator(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ baseURL: origin })
  return withPlatformAuthenticator(context)
}

async function inviteThroughThePage(admin: Page, email: string, role: string): Promise<string> {
  await admin.goto("/admin/staff")
  await admin.getByTestId("invite-email").fill(email)
  await admin.getByTestId("invite-role").selectOption(role)
  await admin.getByTestId("invite-submit").click()
  const link = (await admin.getByTestId("invite-link").textContent()) ?? ""
  expect(link).toMatch(new RegExp(`^${origin}/invitation/[A-Za-z0-9_-]{43}$`))
  return link
}

function row(admin: Page, email: string) {
  return admin.locator(`[data-testid=member-row][data-email="${email}"]`)
}

test("an admin invites a trader, who accepts with a password and a passkey, signs in with the passkey and trades; demoted, their next request is a viewer's; disabled, their session ends at once", async ({ browser }, testInfo) => {
  const email = `trader-${randomUUID().slice(0, 8)}@example.com`
  const admin = await sessions.page(browser, "admin")
  const link = await inviteThroughThePage(admin, email, "trader")
  await expect(row(admin, email)).toHaveAttribute("data-status", "invited")
  await expectNoSeriousA11yViolations(admin, testInfo, "staff page")

  // The invitee, signed out, on their own browser with a platform authenticator.
  const invitee = await pageWithAuthenticator(browser)
  await invitee.goto(link)
  await expect(invitee.getByTestId("invited-email")).toHaveText(email)
  await expect(invitee.getByTestId("invited-role")).toHaveText("trader")
  await expectNoSeriousA11yViolations(invitee, testInfo, "invitation page")
  await invitee.getByTestId("invitation-password").fill("password1234")
  await invitee.getByTestId("invitation-accept").click()
  await expect(invitee.getByText(/is too easy to guess/)).toBeVisible()
  await invitee.getByTestId("invitation-password").fill("Orchid-Tandem-Harbor-42")
  await invitee.getByTestId("invitation-add-passkey").click()
  await expect(invitee.getByTestId("invitation-passkey-ready")).toBeVisible()
  await invitee.getByTestId("invitation-accept").click()
  await expect(invitee.getByTestId("invitation-accepted")).toContainText("your password or your passkey")

  // The link works once: a second visit says so, and changes nothing.
  await invitee.goto(link)
  await expect(invitee.getByTestId("invitation-unusable")).toHaveAttribute("data-reason", "used")

  // Sign in with the passkey alone (discoverable: no email typed).
  await invitee.goto("/sign-in")
  await invitee.getByTestId("passkey-sign-in").click()
  await expect(invitee.getByTestId("staff-email")).toHaveText(email, { timeout: 20_000 })
  await expect(invitee.getByTestId("staff-role")).toHaveText("trader")

  // They trade: a small execution at a quote the console served them.
  const api = invitee.request
  const { items: profiles } = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.find((p) => p.nickname === "Treasury") ?? profiles[0]!
  const { items: quotes } = (await (await api.get("/api/quotes?markets=BTCUSD")).json()) as { items: { id: string; side: string }[] }
  const quote = quotes.find((q) => q.side === "BUY")!
  const trade = await api.post(`/api/profiles/${profile.id}/quote-executions`, { headers: { origin }, data: { quote_id: quote.id, base_amount: "0.0001", ref_id: randomUUID() } })
  expect(trade.ok(), await trade.text()).toBe(true)

  await admin.goto("/admin/staff")
  await expect(row(admin, email).getByTestId("member-passkeys")).toHaveText("1")
  await expect(row(admin, email).getByTestId("member-sessions")).toHaveText("1")

  // Demoted to viewer: their very next request is a viewer's.
  await row(admin, email).getByTestId("member-role").selectOption("viewer")
  await row(admin, email).getByTestId("member-save-role").click()
  await expect(row(admin, email)).toHaveAttribute("data-role", "viewer")
  expect(await (await api.get("/api/me")).json()).toMatchObject({ email, role: "viewer" })
  const refused = await api.post(`/api/profiles/${profile.id}/quote-executions`, { headers: { origin }, data: { quote_id: quote.id, base_amount: "0.0001", ref_id: randomUUID() } })
  expect(refused.status()).toBe(403)
  expect(await refused.json()).toMatchObject({ code: "role_required" })

  // Disabled: their session ends at once; their pages send them to sign in.
  await row(admin, email).getByTestId("member-disable").click()
  await expect(row(admin, email)).toHaveAttribute("data-status", "disabled")
  expect((await api.get("/api/me")).status()).toBe(401)
  await invitee.goto("/")
  await expect(invitee).toHaveURL(/\/sign-in/)
  await invitee.getByTestId("passkey-sign-in").click()
  await expect(invitee.getByRole("form", { name: "Sign in" }).getByRole("alert")).toContainText("Your account is disabled")

  // Every change on the trail, with before and after.
  const events = (await (await admin.request.get(`/api/audit/sign-in-events?email=${encodeURIComponent(email)}`)).json()) as { items: { kind: string; actor: string | null; detail: Record<string, unknown> | null }[] }
  const kinds = events.items.map((e) => e.kind)
  expect(kinds).toEqual(expect.arrayContaining(["staff_invited", "invitation_accepted", "signed_in", "staff_changed", "session_ended", "sign_in_failed"]))
  expect(events.items.filter((e) => e.kind === "staff_changed").map((e) => [e.detail?.before, e.detail?.after])).toEqual([
    [{ role: "viewer", status: "active" }, { role: "viewer", status: "disabled" }],
    [{ role: "trader", status: "active" }, { role: "viewer", status: "active" }],
  ])
})

test("a withdrawn invitation's link is refused with a clear page; the last admin cannot be demoted, and the page says why", async ({ browser }) => {
  const email = `viewer-${randomUUID().slice(0, 8)}@example.com`
  const admin = await sessions.page(browser, "admin")
  const link = await inviteThroughThePage(admin, email, "viewer")
  await admin.reload()
  await row(admin, email).getByTestId("member-withdraw").click()
  await expect(row(admin, email)).toHaveCount(0)
  const visitor = await (await browser.newContext({ baseURL: origin })).newPage()
  await visitor.goto(link)
  await expect(visitor.getByRole("heading", { name: "Invitation withdrawn" })).toBeVisible()
  await expect(visitor.getByTestId("invitation-unusable")).toContainText("Nothing was changed.")

  // This server has a second admin (admin2@example.com, for e2e/policy-four-eyes.spec.ts): disabled
  // for this check, so the demo admin is the last active one, and enabled again after.
  const admin2 = (status: "active" | "disabled") => admin.request.patch("/api/admin/staff/admin2%40example.com", { headers: { origin }, data: { status } })
  expect((await admin2("disabled")).status()).toBe(200)
  try {
    await admin.reload()
    await row(admin, "admin@example.com").getByTestId("member-role").selectOption("trader")
    await row(admin, "admin@example.com").getByTestId("member-save-role").click()
    await expect(row(admin, "admin@example.com").getByRole("alert")).toContainText("is the last active admin")
    await admin.reload()
    await expect(row(admin, "admin@example.com")).toHaveAttribute("data-role", "admin")
  } finally {
    expect((await admin2("active")).status()).toBe(200)
  }
})

import { randomUUID } from "node:crypto"
import { type APIRequestContext, type Browser, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import { signIn, storageStateOf } from "./helpers"
import { adminApi, putPolicy } from "./policy"

// Tiered four eyes and lapsed makers through the UI, on the main server (STEP_UP off):
// a request whose tier needs two approvers is approved by two people on /approvals
// (checker2@example.com, a trader from CONSOLE_USERS, then the demo admin) and placed on
// the second; a request whose maker is demoted in /admin/staff ends VOIDED with the reason
// when someone tries to approve it, and is never placed. The policy is put back after,
// and the demoted maker is a trader invited for this spec alone.

const CHECKER2 = { email: "checker2@example.com", password: "demo-password-checker2" }

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function pageAs(browser: Browser, role: "trader" | "admin"): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(role), baseURL: origin() })
  return context.newPage()
}

/** Signed in through the form with a password (someone the setup project does not sign in). */
async function pageSignedIn(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext({ baseURL: origin() })).newPage()
  await page.goto("/sign-in")
  await signIn(page, email, password)
  // A password sign-in (bcrypt or scrypt) on a busy machine may take a while.
  await expect(page.getByTestId("staff-email")).toHaveText(email, { timeout: 30_000 })
  return page
}

/** A BUY of BTC for `amount` USD at a quote the console served this maker: over the threshold, so it waits (202). */
async function asks(maker: APIRequestContext, amount: string): Promise<{ id: string; refId: string }> {
  const { items: profiles } = (await (await maker.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.find((p) => p.nickname === "Treasury") ?? profiles[0]!
  const { items: quotes } = (await (await maker.get("/api/quotes?markets=BTCUSD")).json()) as { items: { id: string; market: string; side: string; price: string }[] }
  const quote = quotes.find((q) => q.side === "BUY")!
  const refId = randomUUID()
  const res = await maker.post(`/api/profiles/${profile.id}/quote-executions`, {
    headers: { origin: origin() },
    data: { quote_id: quote.id, quote_amount: amount, ref_id: refId, reviewed_quote: { market: quote.market, side: quote.side, price: quote.price } },
  })
  expect(res.status(), await res.text()).toBe(202)
  return { id: ((await res.json()) as { id: string }).id, refId }
}

function item(page: Page, refId: string) {
  return page.locator(`[data-testid=approval-item][data-ref-id="${refId}"]`)
}

test.describe("four eyes on requests", () => {
  // Several people signed in through the form in one test: three times the usual time on a busy machine.
  test.slow()
  let admin: APIRequestContext
  let policyBefore: Record<string, unknown>

  test.beforeAll(async () => {
    admin = await adminApi(origin())
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    const usage = (await (await admin.get("/api/policy")).json()) as { usage_today: { staff_email: string; currency: string; used_today: string }[] }
    const used = usage.usage_today.find((u) => u.staff_email === "trader@example.com" && u.currency === "USD")?.used_today ?? "0.00"
    const { Decimal } = await import("@/lib/money")
    policyBefore = DEFAULT_POLICY
    // From 15,000 USD two distinct approvers (traders or admins); room today for the demo trader's 20,000.
    await putPolicy(admin, {
      ...DEFAULT_POLICY,
      approval_tiers: [{ at_or_over: { USD: "15000.00" }, approvers: 2, roles: ["trader", "admin"] }],
      staff_limits: { "trader@example.com": { per_order: { USD: "50000.00" }, per_day: { USD: new Decimal(used).add("30000").toFixed(2) } } },
    })
  })

  test.afterAll(async () => {
    await putPolicy(admin, policyBefore)
    await admin.dispose()
  })

  test("a request whose tier needs two approvers is approved on /approvals by checker2 and then the admin, and placed on the second approval", async ({ browser }) => {
    const trader = await playwrightRequest.newContext({ baseURL: origin(), storageState: storageStateOf("trader") })
    const { refId } = await asks(trader, "20000.00")

    const checker2 = await pageSignedIn(browser, CHECKER2.email, CHECKER2.password)
    await checker2.goto("/approvals")
    const first = item(checker2, refId)
    await expect(first.getByTestId("approval-state")).toHaveText("Waiting for approval")
    await expect(first.getByTestId("approval-count")).toHaveText("0 of 2 approvals")
    await first.getByTestId("approve").click()
    await expect(first.getByTestId("approved-by-me")).toContainText("it waits for one more approver")
    await expect(first.getByTestId("approval-count")).toHaveText("1 of 2 approvals")
    await expect(first.getByTestId("approve")).toHaveCount(0)
    await expect(first.getByTestId("approval-state")).toHaveText("Waiting for approval")

    const adminPage = await pageAs(browser, "admin")
    await adminPage.goto("/approvals")
    const second = item(adminPage, refId)
    await expect(second.getByTestId("approval-count")).toHaveText("1 of 2 approvals")
    await second.getByTestId("approve").click()
    await expect(second.getByTestId("approval-state")).toHaveText("Approved", { timeout: 20_000 })
    await expect(second.getByTestId("approval-outcome")).toContainText("placed", { timeout: 20_000 })
    await trader.dispose()
  })

  test("a request whose maker is demoted in /admin/staff ends VOIDED with the reason when approved, and nothing is placed", async ({ browser }) => {
    // A trader invited for this test alone, so the demo users stay as they are for later specs.
    const email = `maker-${randomUUID().slice(0, 8)}@example.com`
    const password = "Orchid-Tandem-Harbor-42"
    const invited = await admin.post("/api/admin/staff", { data: { email, role: "trader" } })
    expect(invited.status(), await invited.text()).toBe(201)
    const token = new URL(((await invited.json()) as { link: string }).link).pathname.split("/").pop()!
    const signedOut = await playwrightRequest.newContext({ baseURL: origin(), extraHTTPHeaders: { origin: origin() } })
    const accepted = await signedOut.post("/api/invitations/accept", { data: { token, password } })
    expect(accepted.status(), await accepted.text()).toBe(200)
    await signedOut.dispose()

    const makerPage = await pageSignedIn(browser, email, password)
    const { id, refId } = await asks(makerPage.request, "12000.00")

    // Demoted to viewer on the staff page.
    const adminPage = await pageAs(browser, "admin")
    await adminPage.goto("/admin/staff")
    const member = adminPage.locator(`[data-testid=member-row][data-email="${email}"]`)
    await member.getByTestId("member-role").selectOption("viewer")
    await member.getByTestId("member-save-role").click()
    await expect(member).toHaveAttribute("data-role", "viewer")

    // An approval finds the maker's access gone: the request ends VOIDED with the reason; nothing is sent.
    await adminPage.goto("/approvals")
    const request = item(adminPage, refId)
    await expect(request).toBeVisible()
    // The list's own sweep may void it before the page shows it; while it still shows PENDING, approving is what voids it.
    if ((await request.getAttribute("data-state")) === "PENDING") await request.getByTestId("approve").click({ timeout: 5_000 }).catch(() => undefined)
    await expect(request.getByTestId("approval-state")).toHaveText("Voided", { timeout: 20_000 })
    await expect(request.getByTestId("approval-outcome")).toContainText("Voided: the maker's role is now viewer, and placing an order needs trader or admin. Nothing was sent.")
    const story = (await (await admin.get(`/api/approvals/${id}`)).json()) as { state: string; placement: string; record_id: string | null; reason: string }
    expect(story).toMatchObject({ state: "VOIDED", placement: "NOT_SENT", record_id: null })
  })
})

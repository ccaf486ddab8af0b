import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import AxeBuilder from "@axe-core/playwright"
import { type APIRequestContext, type Browser, type Page, expect, test } from "@playwright/test"
import { formatUsd } from "../lib/format"
import { toDecimal } from "../lib/money"
import canaries from "./canaries.json" with { type: "json" }
import { withoutPolicyLimits } from "./policy"
import { E2E_RECONCILE_AFTER_MS, type Role, emailOf, storageStateOf } from "./helpers"
import { parseCsvRecords } from "../test/csv"

// The audit trail and the sandbox tools, against the embedded sandbox (never mocked).

interface Settings {
  settle_delay_ms: number
  quote_ttl_ms?: number
  rate_limits: boolean
  rules: unknown[]
}

interface Placed {
  refId: string
  profileId: string
  status: number
  body: { id?: string; title?: string; status?: number | string }
}

/** A signed-in API client of another role, on the same server. */
async function apiAs(browser: Browser, role: Role, baseURL: string): Promise<APIRequestContext> {
  const context = await browser.newContext({ storageState: storageStateOf(role), baseURL })
  return context.request
}

async function firstProfileId(api: APIRequestContext): Promise<string> {
  const res = await api.get("/api/profiles")
  expect(res.status()).toBe(200)
  const { items } = (await res.json()) as { items: { id: string }[] }
  return items[0]!.id
}

async function buyQuoteId(api: APIRequestContext, market = "BTCUSD"): Promise<string> {
  const res = await api.get(`/api/quotes?markets=${market}`)
  expect(res.status()).toBe(200)
  const { items } = (await res.json()) as { items: { id: string; side: string; market: string }[] }
  return items.find((q) => q.side === "BUY" && q.market === market)!.id
}

/** The trader's trade, through the console API as the trade desk sends it. */
async function placeTrade(
  api: APIRequestContext,
  baseURL: string,
  body: { base_amount?: string; quote_amount?: string; quote_id?: string; reviewed_quote?: { market: string; side: string; price: string } } = {
    base_amount: "0.0001",
  },
): Promise<Placed> {
  const profileId = await firstProfileId(api)
  const refId = randomUUID()
  const quoteId = body.quote_id ?? (await buyQuoteId(api))
  const res = await api.post(`/api/profiles/${profileId}/quote-executions`, {
    headers: { origin: baseURL },
    data: { ...body, quote_id: quoteId, ref_id: refId },
  })
  return { refId, profileId, status: res.status(), body: (await res.json()) as Placed["body"] }
}

async function putSettings(api: APIRequestContext, baseURL: string, patch: Partial<Settings>): Promise<Settings> {
  const res = await api.put("/api/sandbox/settings", { headers: { origin: baseURL }, data: patch })
  expect(res.status(), await res.text()).toBe(200)
  return (await res.json()) as Settings
}

async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join("; ")})`)).toEqual([])
}

const auditRow = (page: Page, refId: string) => page.locator(`[data-testid="audit-row"][data-ref-id="${refId}"]`)

/** Today's UTC date, plus `days`, as the audit's date filters (UTC days) take it. */
function utcDay(days = 0): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10)
}

test.describe("as an admin", () => {
  // A browser far from UTC: the audit's times and date filters are UTC all the same.
  test.use({ storageState: storageStateOf("admin"), timezoneId: "Asia/Kolkata" })

  let original: Settings
  test.beforeAll(async ({ browser, baseURL }) => {
    const admin = await apiAs(browser, "admin", baseURL!)
    original = (await (await admin.get("/api/sandbox/settings")).json()) as Settings
  })

  // Whatever a test did, the sandbox is back as it was: no faults, original settings.
  test.afterEach(async ({ request, baseURL }) => {
    await putSettings(request, baseURL!, {
      rules: [],
      settle_delay_ms: original.settle_delay_ms,
      rate_limits: original.rate_limits,
      ...(original.quote_ttl_ms === undefined ? {} : { quote_ttl_ms: original.quote_ttl_ms }),
    })
  })

  test("sees the trader's trade in the audit trail with its state, amounts and record link, and no secret", async ({ page, browser, baseURL }) => {
    const trader = await apiAs(browser, "trader", baseURL!)
    const trade = await placeTrade(trader, baseURL!)
    expect(trade.status).toBe(200)

    await page.goto("/audit")
    const row = auditRow(page, trade.refId)
    await expect(row).toBeVisible()
    await expect(row.getByTestId("intent-state")).toHaveText("SUCCEEDED")
    await expect(row.getByTestId("audit-staff")).toHaveText(emailOf("trader"))
    await expect(row.getByTestId("audit-role")).toHaveText("trader")
    await expect(row.getByTestId("audit-operation")).toHaveText("Execute quote")
    await expect(row.getByTestId("audit-amounts")).toContainText("0.0001")
    await expect(row.getByTestId("audit-record")).toHaveAttribute("href", `/executions/${trade.profileId}/${trade.body.id}`)
    await expect(row.getByTestId("audit-problem")).toHaveText("—")
    // The time is UTC, as the column says, not the browser's zone (UTC+05:30 here).
    await expect(page.getByRole("columnheader", { name: "Time (UTC)" })).toBeVisible()
    const at = (await row.locator("time").getAttribute("datetime")) ?? ""
    await expect(row.locator("time")).toHaveText(`${new Date(at).toISOString().slice(0, 19).replace("T", " ")} UTC`)

    const html = await page.content()
    for (const [name, value] of Object.entries(canaries)) {
      if (name.includes("SECRET")) expect(html.includes(value), name).toBe(false)
    }
    expect(html).not.toMatch(/Bearer\s|access_token|authorization/i)
    await expectNoSeriousA11yViolations(page)
  })

  test("filters by staff, operation, state and dates, and the CSV export holds exactly the filtered rows", async ({ page, browser, baseURL }) => {
    const trader = await apiAs(browser, "trader", baseURL!)
    const ok = await placeTrade(trader, baseURL!)
    expect(ok.status).toBe(200)
    // Over the sandbox's 50,000 USD per execution: refused, so the intent FAILED (the console's own limits are lifted meanwhile).
    const refused = await withoutPolicyLimits(baseURL!, () => placeTrade(trader, baseURL!, { quote_amount: "60000.00" }))
    expect(refused.status).toBe(400)

    await page.goto("/audit")
    const filters = page.getByRole("form", { name: "Audit filters" })
    await filters.getByLabel("Staff email").fill(emailOf("trader"))
    await filters.getByLabel("State").selectOption("FAILED")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect(page).toHaveURL(/\/audit\?staff=trader%40example\.com&state=FAILED$/)
    const failedRow = auditRow(page, refused.refId)
    await expect(failedRow.getByTestId("intent-state")).toHaveText("FAILED")
    await expect(failedRow.getByTestId("audit-problem")).toContainText(refused.body.title!)
    await expect(auditRow(page, ok.refId)).toHaveCount(0)
    for (const state of await page.getByTestId("intent-state").allTextContents()) expect(state).toBe("FAILED")
    for (const staff of await page.getByTestId("audit-staff").allTextContents()) expect(staff).toBe(emailOf("trader"))

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()])
    expect(download.suggestedFilename()).toMatch(/^audit-\d{8}T\d{6}Z\.csv$/)
    const exported = parseCsvRecords(readFileSync(await download.path(), "utf8"))
    expect(exported.length).toBeGreaterThan(0)
    expect(exported.map((r) => r.ref_id)).toContain(refused.refId)
    expect(exported.map((r) => r.ref_id)).not.toContain(ok.refId)
    for (const r of exported) expect(r).toMatchObject({ state: "FAILED", staff_email: emailOf("trader") })
    expect(exported.find((r) => r.ref_id === refused.refId)).toMatchObject({
      operation: "create_execution",
      quote_amount: "60000.00",
      problem_title: refused.body.title,
      profile_id: refused.profileId,
    })
    expect(await page.locator("[data-testid=audit-row]").count()).toBe(Math.min(exported.length, 50))

    // Operation and state: the successful trade, not the refused one.
    await filters.getByLabel("Operation").selectOption("create_execution")
    await filters.getByLabel("State").selectOption("SUCCEEDED")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect(auditRow(page, ok.refId).getByTestId("intent-state")).toHaveText("SUCCEEDED")
    await expect(auditRow(page, refused.refId)).toHaveCount(0)
    for (const op of await page.getByTestId("audit-operation").allTextContents()) expect(op).toBe("Execute quote")

    // Dates: today holds both trades; from tomorrow holds nothing; a reversed range is refused in words.
    await filters.getByLabel("State").selectOption("")
    await expect(page.getByRole("columnheader", { name: "Time (UTC)" })).toBeVisible()
    await filters.getByLabel("From date (UTC)").fill(utcDay())
    await filters.getByLabel("To date (UTC)").fill(utcDay())
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect(auditRow(page, ok.refId)).toBeVisible()
    await expect(auditRow(page, refused.refId)).toBeVisible()
    await filters.getByLabel("From date").fill(utcDay(1))
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect(filters.getByText("must be on or after the From date")).toBeVisible()
    await filters.getByLabel("To date").fill("")
    await filters.getByRole("button", { name: "Apply filters" }).click()
    await expect(page.getByText("No intents match these filters.")).toBeVisible()
    const empty = await page.request.get(`/api/audit/export?from=${encodeURIComponent(new Date(Date.now() + 2 * 86_400_000).toISOString())}`)
    expect(parseCsvRecords(await empty.text())).toEqual([])

    // Clear: every intent again.
    await filters.getByRole("button", { name: "Clear" }).click()
    await expect(auditRow(page, ok.refId)).toBeVisible()
    await expect(auditRow(page, refused.refId)).toBeVisible()
  })

  test("pages through the trail with Load more, without repeats", async ({ page, browser, baseURL }) => {
    const trader = await apiAs(browser, "trader", baseURL!)
    // 55 executions of a quote the console never served: each refused at once (quote_not_current),
    // each a refusal on the trail.
    const reviewed_quote = { market: "BTCUSD", side: "BUY", price: "95000" }
    for (let i = 0; i < 55; i++) {
      const placed = await placeTrade(trader, baseURL!, { base_amount: "0.0001", quote_id: randomUUID(), reviewed_quote })
      expect(placed.status).toBe(422)
    }
    await page.goto("/audit?state=REFUSED")
    await expect(page.getByTestId("audit-count")).toHaveText("Showing 50 intents; more are older")
    await page.getByRole("button", { name: "Load more" }).click()
    await expect(page.getByTestId("audit-count")).not.toHaveText(/Showing 50 /)
    const refs = await page.locator("[data-testid=audit-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-ref-id")))
    expect(refs.length).toBeGreaterThanOrEqual(55)
    expect(new Set(refs).size).toBe(refs.length)
  })

  test("Reconcile now resolves an intent whose outcome was unknown and says how many it resolved", async ({ page, request, browser, baseURL }) => {
    await putSettings(request, baseURL!, { rules: [{ operation: "create_execution", fault: "error", rate: 1, status: 503 }] })
    const trader = await apiAs(browser, "trader", baseURL!)
    const unsure = await placeTrade(trader, baseURL!)
    expect(unsure.status).toBe(502)
    await putSettings(request, baseURL!, { rules: [] })

    await page.goto("/audit")
    const row = auditRow(page, unsure.refId)
    await expect(row.getByTestId("intent-state")).toHaveText("UNKNOWN")
    await expect(row.getByTestId("audit-problem")).toContainText("Bad Gateway")

    // The reconciler leaves intents younger than RECONCILE_AFTER_MS to their own request.
    await page.waitForTimeout(E2E_RECONCILE_AFTER_MS + 1000)
    await page.getByRole("button", { name: "Reconcile now" }).click()
    await expect(page.getByText(/^Reconciled: \d+ intents? resolved$/)).toBeVisible()
    await expect(page.getByTestId("reconcile-report")).toContainText("still unknown")
    // Ours is resolved now (by this click, or by the minutely background run just before it).
    await expect(row.getByTestId("intent-state")).toHaveText(/^(SUCCEEDED|FAILED)$/)
  })

  test("a deposit changes the balance on /trade; settings save; the forms name wrong fields", async ({ page, request }) => {
    const profileId = await firstProfileId(request)
    const balance = async () => {
      const { items } = (await (await request.get(`/api/profiles/${profileId}/balances`)).json()) as { items: { asset: string; available: string }[] }
      return items.find((b) => b.asset === "USD")?.available ?? "0"
    }
    const before = await balance()

    await page.goto("/sandbox")
    await expect(page.getByRole("heading", { name: "Sandbox tools", level: 1 })).toBeVisible()
    const deposit = page.getByRole("form", { name: "Deposit funds" })
    await deposit.getByLabel("Asset").selectOption("USD")
    await deposit.getByLabel("Amount").fill("10.001")
    await deposit.getByRole("button", { name: "Deposit" }).click()
    await expect(deposit.getByText("at most 2 decimals for USD", { exact: true })).toBeVisible()
    await expect(deposit.getByLabel("Amount")).toHaveAttribute("aria-invalid", "true")
    await deposit.getByLabel("Asset").selectOption("BTC")
    await expect(deposit.getByText("At most 8 decimals for BTC.", { exact: true })).toBeVisible()
    await expect(deposit.getByText("at most 2 decimals for USD", { exact: true })).toHaveCount(0)
    await deposit.getByLabel("Asset").selectOption("USD")
    // Keyboard only: type the amount and press Enter.
    await deposit.getByLabel("Amount").fill("1234.56")
    await deposit.getByLabel("Amount").press("Enter")
    await expect(deposit.getByRole("status").filter({ hasText: "Deposited" })).toContainText("1,234.56")
    const expected = toDecimal(before).plus(toDecimal("1234.56"))
    expect(toDecimal(await balance()).eq(expected)).toBe(true)
    await expect(deposit.getByTestId("deposit-balance")).toContainText(formatUsd(expected.toFixed(2)))

    // The trade desk shows the new balance (amounts as written, grouped: compare by value).
    await page.goto("/trade")
    const shown = page.getByTestId("balance-USD").first().getByTestId("balance-available")
    await expect(shown).toBeVisible()
    await expect.poll(async () => toDecimal(((await shown.textContent()) ?? "").replace(/,/g, "").trim()).eq(expected)).toBe(true)

    // Settlement delay, quote hold time and rate limits: saved through the sandbox's admin API.
    await page.goto("/sandbox")
    const settings = page.getByRole("form", { name: "Sandbox settings" })
    await settings.getByLabel("Settlement delay (ms)").fill("-5")
    await settings.getByRole("button", { name: "Save settings" }).click()
    await expect(settings.getByText("must be a whole number of milliseconds", { exact: true })).toBeVisible()
    await settings.getByLabel("Settlement delay (ms)").fill("2500")
    await settings.getByLabel("Quote hold time (ms)").fill("45000")
    await settings.getByLabel("Rate limits on").check()
    await settings.getByRole("button", { name: "Save settings" }).click()
    await expect(settings.getByText("Settings saved.")).toBeVisible()
    const saved = (await (await request.get("/api/sandbox/settings")).json()) as Settings
    expect(saved).toMatchObject({ settle_delay_ms: 2500, quote_ttl_ms: 45000, rate_limits: true })
    await expectNoSeriousA11yViolations(page)
  })

  for (const then of ["503", "drop"] as const) {
    test(`commit-then-fail (${then}) on executions: the trader's trade yields exactly one execution and a SUCCEEDED intent; the banner shows it`, async ({ page, browser, baseURL }) => {
      // A trader is at work on /trade before the admin turns a fault on.
      const traderContext = await browser.newContext({ storageState: storageStateOf("trader"), baseURL: baseURL! })
      const traderPage = await traderContext.newPage()
      await traderPage.goto("/trade")
      await expect(traderPage.getByRole("heading", { name: "Trade", level: 1 })).toBeVisible()
      await expect(traderPage.getByTestId("faults-active")).toHaveCount(0)
      let traderLoads = 0
      traderPage.on("load", () => traderLoads++)

      await page.goto("/sandbox")
      await expect(page.getByTestId("faults-active")).toHaveCount(0)
      const faults = page.getByRole("form", { name: "Fault rules" })
      // Keyboard: focus "Add rule" and press Enter.
      await faults.getByRole("button", { name: "Add rule" }).focus()
      await page.keyboard.press("Enter")
      await faults.getByLabel("Operation (rule 1)").selectOption("create_execution")
      await faults.getByLabel("Fault (rule 1)").selectOption("commit_then_fail")
      await faults.getByLabel("Chance % (rule 1)").fill("100")
      await faults.getByLabel("Then (rule 1)").selectOption(then)
      await expectNoSeriousA11yViolations(page)
      await faults.getByRole("button", { name: "Save faults" }).click()
      await expect(faults.getByText("Faults saved.")).toBeVisible()

      // The banner follows at once, without a reload.
      await expect(page.getByTestId("faults-active")).toHaveText(/FAULTS ACTIVE: 1 rule \(create_execution\)/)
      // So does the trader's open page, without a reload: every role's banner polls (every 15 s).
      await expect(traderPage.getByTestId("faults-active")).toHaveText(/FAULTS ACTIVE: 1 rule \(create_execution\)/, { timeout: 30_000 })
      await expect(traderPage.getByTestId("faults-active").getByRole("link", { name: "Sandbox tools" })).toHaveCount(0)
      expect(traderLoads).toBe(0)

      const trader = await apiAs(browser, "trader", baseURL!)
      const trade = await placeTrade(trader, baseURL!)
      expect(trade.status).toBe(200)
      const list = (await (await trader.get(`/api/profiles/${trade.profileId}/quote-executions?limit=100`)).json()) as {
        items: { id: string; ref_id?: string }[]
      }
      const ours = list.items.filter((e) => e.ref_id === trade.refId)
      expect(ours).toHaveLength(1)
      expect(ours[0]!.id).toBe(trade.body.id)

      await page.goto(`/audit`)
      await expect(auditRow(page, trade.refId).getByTestId("intent-state")).toHaveText("SUCCEEDED")
      await expect(page.getByTestId("faults-active")).toBeVisible()

      // A page loaded now shows it from the server's first answer.
      const freshPage = await traderContext.newPage()
      await freshPage.goto("/")
      await expect(freshPage.getByTestId("faults-active")).toBeVisible()
      await freshPage.close()

      // One click clears every fault; the banner goes quiet.
      await page.goto("/sandbox")
      await page.getByRole("button", { name: "Clear all faults" }).click()
      await expect(page.getByText("All faults cleared.")).toBeVisible()
      await expect(page.getByTestId("faults-active")).toHaveCount(0)
      await expect(page.getByTestId("no-faults")).toBeVisible()
      // The trader's page, still not reloaded, goes quiet too.
      await expect(traderPage.getByTestId("faults-active")).toHaveCount(0, { timeout: 30_000 })
      expect(traderLoads).toBe(0)
      await traderContext.close()
    })
  }

  test("/sandbox is the tools page while /sandbox/** is still the embedded sandbox", async ({ page, request }) => {
    const res = await page.goto("/sandbox")
    expect(res?.status()).toBe(200)
    await expect(page.getByRole("heading", { name: "Sandbox tools" })).toBeVisible()
    const sandbox = await request.get("/sandbox/v2/quotes?markets=BTCUSD")
    expect(sandbox.status()).toBe(401)
    const token = await request.post("/sandbox/oauth2/token", {
      form: { grant_type: "client_credentials", client_id: "nobody", client_secret: "wrong" },
    })
    expect(token.status()).toBe(401)
    expect(((await token.json()) as { error: string }).error).toBe("invalid_client")
  })
})

for (const role of ["viewer", "support", "trader"] as const) {
  test.describe(`as ${role}`, () => {
    test.use({ storageState: storageStateOf(role) })

    test(`${role} gets no Audit or Sandbox navigation, "Not allowed" pages and 403 from their APIs (the banner's fault status excepted)`, async ({ page, request, baseURL }) => {
      await page.goto("/")
      const nav = page.getByRole("navigation", { name: "Main" })
      await expect(nav.getByRole("link", { name: "Trade" })).toBeVisible()
      await expect(nav.getByRole("link", { name: "Audit" })).toHaveCount(0)
      await expect(nav.getByRole("link", { name: "Sandbox" })).toHaveCount(0)
      for (const path of ["/audit", "/sandbox"]) {
        await page.goto(path)
        await expect(page.getByRole("alert").filter({ hasText: "the admin role" })).toContainText(`you are ${role}`)
        await expect(page.locator("[data-testid=audit-row], form[aria-label='Fault rules']")).toHaveCount(0)
      }
      const origin = { origin: baseURL! }
      const answers = [
        await request.get("/api/audit"),
        await request.get("/api/audit/export"),
        await request.post("/api/audit/reconcile", { headers: origin }),
        await request.get("/api/sandbox/settings"),
        await request.put("/api/sandbox/settings", { headers: origin, data: { rules: [] } }),
        await request.post("/api/sandbox/deposit", { headers: origin, data: { profile_id: "x", asset: "USD", amount: "1.00" } }),
      ]
      for (const res of answers) {
        expect(`${res.url()} ${res.status()}`).toBe(`${res.url()} 403`)
        expect(res.headers()["content-type"]).toContain("application/problem+json")
      }
      // The banner's fault status is for every role, and says no more than the banner does.
      const status = await request.get("/api/sandbox/status")
      expect(status.status()).toBe(200)
      expect(Object.keys((await status.json()) as object).sort()).toEqual(["active_rules", "faults_active", "operations"])
    })
  })
}

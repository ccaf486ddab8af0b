import { type Browser, type Page, expect, test } from "@playwright/test"
import { storageStateOf } from "./helpers"
import { adminApi, moveMarket, putPolicy, readPolicy } from "./policy"

// Four eyes, end to end against the embedded sandbox: a trader's order at or over the
// approval threshold waits; someone else approves (or rejects) it; the trader's screen
// follows it live. Nothing is mocked.

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function pageAs(browser: Browser, role: "trader" | "admin"): Promise<Page> {
  const context = await browser.newContext({ storageState: storageStateOf(role), baseURL: origin() })
  return context.newPage()
}

/** On the trade desk, asks to BUY `usd` worth of BTC; returns its ref_id once the request shows. */
async function askToBuy(page: Page, usd: string): Promise<string> {
  await page.goto("/trade")
  await expect(page.getByLabel("Profile", { exact: true })).toBeEnabled()
  await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Treasury" })
  await expect(page.getByTestId("quote-BUY").getByTestId("quote-price")).toBeVisible()
  await page.getByTestId("choose-BUY").click()
  const form = page.getByTestId("execute-form")
  await form.getByTestId("mode-fiat").check()
  await form.getByTestId("amount").fill(usd)
  await page.getByTestId("review-button").click()
  const dialog = page.getByRole("dialog")
  await expect(dialog.getByTestId("review")).toBeVisible()
  const refId = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
  await dialog.getByTestId("confirm-button").click()
  const request = page.getByTestId("result").getByTestId("approval-request")
  await expect(request.getByTestId("approval-state")).toHaveText("Waiting for approval")
  return refId
}

/** A market's tick_rate as the console has it from the service (GET /api/markets/prices), and the decimals it means. */
async function tickOf(page: Page, market: string): Promise<{ tick: string; decimals: RegExp }> {
  const res = await page.request.get("/api/markets/prices")
  expect(res.ok()).toBe(true)
  const tick = ((await res.json()) as { tick_rates: Record<string, string> }).tick_rates[market]
  if (!tick) throw new Error(`no tick_rate for ${market}`)
  const places = tick.includes(".") ? tick.length - tick.indexOf(".") - 1 : 0
  return { tick, decimals: new RegExp(`^\\d{1,3}(,\\d{3})*${places > 0 ? `\\.\\d{${places}}` : ""}$`) }
}

/**
 * The price inside `scope` carries the market's tick and, being a quoted price, is written
 * with its decimals, as the desk writes it. A limit price (the reviewed price and a
 * tolerance) keeps the digits it has beyond the tick, so only its tick is checked.
 */
async function expectTicked(scope: ReturnType<Page["getByTestId"]>, market: { tick: string; decimals: RegExp }, quoted = true): Promise<void> {
  const price = scope.locator("[data-num=price]").first()
  await expect(price).toHaveAttribute("data-tick", market.tick)
  if (quoted) expect(((await price.textContent()) ?? "").trim().split(/\s/)[0]).toMatch(market.decimals)
}

function item(page: Page, refId: string) {
  return page.locator(`[data-testid=approval-item][data-ref-id="${refId}"]`)
}

test.describe("four eyes", () => {
  test.beforeAll(async () => {
    // The defaults: approval at 10,000 USD; traders 50,000 per order, 250,000 per day.
    const admin = await adminApi(origin())
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    await putPolicy(admin, DEFAULT_POLICY)
    await admin.dispose()
  })

  test("a 20,000 USD BUY waits; the trader cannot approve it; the admin approves and it settles on the trader's screen", async ({ browser }) => {
    const trader = await pageAs(browser, "trader")
    const refId = await askToBuy(trader, "20000")
    const request = trader.getByTestId("approval-request")
    await expect(request.getByTestId("approval-limit-price")).toBeVisible()
    // Prices on approvals and records have the market's tick decimals, as on the desk.
    const btc = await tickOf(trader, "BTCUSD")
    await expectTicked(request.getByTestId("approval-limit-price"), btc, false)

    // The trader sees their request on /approvals with no approve control, and the API refuses them.
    const traderList = await trader.context().newPage()
    await traderList.goto("/approvals")
    await expect(item(traderList, refId).getByTestId("approval-state")).toHaveText("Waiting for approval")
    await expect(item(traderList, refId).getByTestId("approve")).toHaveCount(0)
    await expect(item(traderList, refId)).toContainText("You asked for this")
    const id = (await (await trader.request.get("/api/approvals?state=PENDING")).json()) as { items: { id: string; ref_id: string }[] }
    const mine = id.items.find((r) => r.ref_id === refId)!
    const own = await trader.request.post(`/api/approvals/${mine.id}/approve`, { headers: { origin: origin() }, data: {} })
    expect(own.status()).toBe(403)
    expect(own.headers()["content-type"]).toBe("application/problem+json")

    // The admin's overview says a request waits; /approvals shows it pending, with the badge, and it is approved there.
    const admin = await pageAs(browser, "admin")
    await admin.goto("/")
    await expect(admin.getByTestId("attention-approvals")).toContainText(/\d+ requests? waits? for your approval/)
    await admin.getByTestId("attention-approvals").getByRole("link").click()
    await expect(admin).toHaveURL(/\/approvals$/)
    await expect(admin.getByRole("navigation", { name: "Main" }).getByTestId("approvals-badge")).toBeVisible()
    const pending = item(admin, refId)
    await expect(pending.getByTestId("approval-maker")).toHaveText("trader@example.com")
    // What the checker decides on: profile, side, quantity, notional, limit price, the held price now.
    await expect(pending.getByTestId("approval-profile")).toContainText("Treasury")
    await expect(pending.getByTestId("approval-side")).toHaveText("BUY BTCUSD")
    await expect(pending.getByTestId("approval-quantity")).toContainText("USD")
    await expect(pending.getByTestId("approval-notional")).toContainText("20,000.00 USD")
    await expect(pending.getByTestId("approval-limit")).toContainText("or lower")
    await expect(pending.getByTestId("live-price")).toBeVisible()
    await expectTicked(pending.getByTestId("approval-limit"), btc, false)
    await expectTicked(pending.getByTestId("live-price"), btc)
    await pending.getByTestId("approve").click()
    await expect(pending.getByTestId("approval-state")).toHaveText("Approved")
    // Decided: no held price any more; the fill against the limit and a link to the placed execution.
    await expect(pending.getByText("Held price now")).toHaveCount(0)
    await expect(pending.getByTestId("approval-fill")).toContainText("within the limit")
    await expectTicked(pending.getByTestId("approval-fill"), btc)
    await expect(pending.getByTestId("approval-record")).toHaveAttribute("href", /^\/executions\/[^/]+\/[^/]+$/)
    await expect(pending.getByTestId("approval-checker")).toHaveText("admin@example.com")

    // The trader's screen, never reloaded: approved, then the execution reaches SETTLED.
    await expect(request.getByTestId("approval-state")).toHaveText("Approved")
    const record = trader.getByTestId("result")
    await expect(record.getByTestId("record-ref-id")).toHaveText(refId)
    await expect(record.getByTestId("status")).toHaveText("SETTLED", { timeout: 20_000 })
    await expectTicked(record.getByTestId("record-price"), btc)
    await trader.context().close()
    await admin.context().close()
  })

  test("a second request is rejected with a reason, and the trader sees the reason", async ({ browser }) => {
    const trader = await pageAs(browser, "trader")
    const refId = await askToBuy(trader, "20000")
    const admin = await pageAs(browser, "admin")
    await admin.goto("/approvals")
    const pending = item(admin, refId)
    // One text box: the comment on an approval, the reason on a rejection.
    await expect(pending.getByRole("textbox")).toHaveCount(1)
    await pending.getByTestId("reject").click()
    await expect(pending.getByRole("alert")).toContainText("Give a reason to reject.")
    await expect(pending.getByTestId("decision-note")).toBeFocused()
    await expect(pending.getByRole("textbox")).toHaveCount(1)
    await pending.getByTestId("decision-note").fill("Over the desk's appetite today")
    await pending.getByTestId("reject").click()
    await expect(pending.getByTestId("approval-state")).toHaveText("Rejected")
    await expect(pending.getByTestId("approval-checker")).toHaveText("admin@example.com")
    await expect(pending.getByText("Held price now")).toHaveCount(0)
    const request = trader.getByTestId("approval-request")
    await expect(request.getByTestId("approval-state")).toHaveText("Rejected")
    await expect(request.getByTestId("approval-detail")).toContainText("Over the desk's appetite today")
    await trader.context().close()
    await admin.context().close()
  })

  test("a third ends PRICE_MOVED after a sandbox market move, and nothing is placed", async ({ browser }) => {
    const trader = await pageAs(browser, "trader")
    const refId = await askToBuy(trader, "20000")
    await moveMarket(origin(), "BTC", "5")
    const admin = await pageAs(browser, "admin")
    await admin.goto("/approvals")
    const pending = item(admin, refId)
    // The live quote beside the limit price says it would not execute now.
    await expect(pending.getByText("past limit")).toBeVisible({ timeout: 15_000 })
    await pending.getByTestId("approve").click()
    await expect(pending.getByTestId("approval-state")).toHaveText("Price moved")
    const request = trader.getByTestId("approval-request")
    await expect(request.getByTestId("approval-state")).toHaveText("Price moved")
    await expect(request.getByTestId("approval-detail")).toContainText("limit price")
    await moveMarket(origin(), "BTC", "-4.7619")
    const listed = (await (await trader.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
    const treasury = listed.items.find((p) => p.nickname === "Treasury")!
    const executions = (await (await trader.request.get(`/api/profiles/${treasury.id}/quote-executions?limit=50`)).json()) as {
      items: { ref_id?: string }[]
    }
    expect(executions.items.filter((e) => e.ref_id === refId)).toHaveLength(0)
    await trader.context().close()
    await admin.context().close()
  })

  test("a conversion over the threshold waits, is approved and settles on the trader's screen", async ({ browser }) => {
    const trader = await pageAs(browser, "trader")
    await trader.goto("/conversions/new")
    await trader.getByLabel("Profile", { exact: true }).selectOption({ label: "Treasury" })
    await trader.getByLabel("From (source asset)").selectOption("USD")
    await trader.getByLabel("To (target asset)").selectOption("PYUSD")
    await trader.getByLabel(/^Amount/).fill("15000.00")
    await trader.getByRole("button", { name: "Review" }).click()
    const dialog = trader.getByRole("dialog", { name: "Confirm the conversion" })
    const refId = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    // Over the threshold: the review says so before anything is sent.
    await expect(dialog.getByRole("button", { name: "Confirm conversion" })).toHaveCount(0)
    await dialog.getByRole("button", { name: "Submit for approval" }).click()
    const request = trader.getByTestId("approval-request")
    await expect(request.getByTestId("approval-state")).toHaveText("Waiting for approval")

    const admin = await pageAs(browser, "admin")
    await admin.goto("/approvals")
    await item(admin, refId).getByTestId("approve").click()
    await expect(request.getByTestId("approval-state")).toHaveText("Approved")
    const record = trader.getByTestId("conversion-record")
    await expect(record.getByTestId("conversion-ref-id")).toContainText(refId)
    await expect(record.getByTestId("status")).toHaveText("SETTLED", { timeout: 20_000 })
    await trader.context().close()
    await admin.context().close()
  })

  test("an order over the daily limit is refused with the numbers; the admin's Policy section shows usage today", async ({ browser }) => {
    const api = await adminApi(origin())
    const before = await readPolicy(api)
    const used = (await (await api.get("/api/policy")).json()) as { usage_today: { staff_email: string; currency: string; used_today: string }[] }
    const today = used.usage_today.find((u) => u.staff_email === "trader@example.com" && u.currency === "USD")?.used_today ?? "0.00"
    // A daily limit just 100 USD above what the trader has used today.
    const { Decimal } = await import("@/lib/money")
    const limit = new Decimal(today).add(100).toFixed(2)
    await putPolicy(api, { ...before, staff_limits: { "trader@example.com": { per_order: { USD: "50000.00" }, per_day: { USD: limit } } } })
    try {
      const trader = await pageAs(browser, "trader")
      await trader.goto("/trade")
      await expect(trader.getByTestId("quote-BUY").getByTestId("quote-price")).toBeVisible()
      await trader.getByTestId("choose-BUY").click()
      const form = trader.getByTestId("execute-form")
      await form.getByTestId("mode-fiat").check()
      await form.getByTestId("amount").fill("150")
      await trader.getByTestId("review-button").click()
      const dialog = trader.getByRole("dialog")
      // The review says it before Confirm, with the numbers, and Confirm is off.
      const { formatUsd } = await import("@/lib/format")
      await expect(dialog.getByTestId("review-checks-verdict")).toContainText(
        `Over your daily limit of ${formatUsd(limit)} USD (${formatUsd(today)} used today): the console will refuse it.`,
      )
      await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
      await expect(dialog.getByTestId("edit-order")).toBeFocused()
      // The server refuses the same order too, with the numbers.
      const quoteId = (await dialog.getByTestId("review-quote-id").textContent()) ?? ""
      const profiles = (await (await trader.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
      const treasury = profiles.items.find((p) => p.nickname === "Treasury")?.id ?? ""
      const sent = await trader.request.post(`/api/profiles/${treasury}/quote-executions`, {
        headers: { origin: origin() },
        data: { quote_id: quoteId, quote_amount: "150.00", ref_id: crypto.randomUUID() },
      })
      expect(sent.status()).toBe(422)
      const refusal = (await sent.json()) as { code: string; detail: string }
      expect(refusal.code).toBe("limit_exceeded")
      expect(refusal.detail).toBe(`Your daily limit is ${formatUsd(limit)} USD (UTC day); you have used ${formatUsd(today)} USD today and this order adds 150.00 USD.`)
      await trader.context().close()

      const admin = await pageAs(browser, "admin")
      await admin.goto("/approvals")
      const policy = admin.getByTestId("policy-section")
      await expect(policy.getByText("Executions need approval at")).toBeVisible()
      await expect(policy.getByTestId("usage-row").filter({ hasText: "trader@example.com" }).first()).toBeVisible()
      await admin.context().close()
    } finally {
      await putPolicy(api, before)
      await api.dispose()
    }
  })
})

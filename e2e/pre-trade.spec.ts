import { type Page, expect, test } from "@playwright/test"
import { buyQuoteLive, deskKeysWork, openDesk, review, startTrade } from "./desk"
import { storageStateOf } from "./helpers"
import { roomToday, withoutPolicyLimits } from "./policy"

// Issue 30, findings 1-3 replayed as written, against the embedded sandbox and the default
// policy (per order 50,000.00 USD, approval at 10,000.00 USD, amount typed again from
// 25,000.00 USD). The pre-trade facts come from the server (GET /api/me/limits).

function origin(): string {
  return String(test.info().project.use.baseURL)
}

/** Counts the page's POSTs of quote executions from now on. */
function countPosts(page: Page): () => number {
  let posts = 0
  page.on("request", (r) => {
    if (r.method() === "POST" && r.url().endsWith("/quote-executions")) posts++
  })
  return () => posts
}

test.use({ storageState: storageStateOf("trader") })

// The default rules, with a day that has room whatever earlier specs placed.
let restorePolicy: () => Promise<void> = () => Promise.resolve()
test.beforeAll(async ({ baseURL }) => {
  restorePolicy = await roomToday(baseURL!, "trader@example.com", "1000000.00")
})
test.afterAll(async () => {
  await restorePolicy()
})

test("a unit slip never reaches Confirm: B, 250, Enter shows the order over the limit per order, Confirm off, Edit order focused", async ({ page }, testInfo) => {
  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  const posts = countPosts(page)
  // The keyboard starts on the page, not in the profile picker openDesk used.
  await page.locator("body").focus()
  await page.keyboard.press("b")
  const amount = page.getByTestId("amount")
  await expect(amount).toBeFocused()
  await page.keyboard.type("250")
  // The ticket says it while typing, where the trader looks: both currencies, the limit, the verdict.
  const ticket = page.getByTestId("execute-form").getByTestId("pre-trade")
  await expect(ticket.getByTestId("pre-trade-verdict")).toHaveText("Over your limit per order of 50,000.00 USD: the console will refuse it.")
  await expect(ticket.getByTestId("pre-trade-size")).toContainText(/[\d,]+\.\d\d\s*USD\s*=\s*250\.00000000\s*BTC/)
  await expect(ticket.getByTestId("pre-trade-per-order")).toContainText(/limit 50,000\.00\s*USD · this order is [\d,]+× it/)
  // The day: what is used and the daily limit (the spec gives the trader room above what earlier specs used).
  await expect(ticket.getByTestId("pre-trade-per-day")).toContainText(/used [\d,]+\.\d\d\s*USD of [\d,]+\.\d\d\s*USD · left 1,000,000\.00\s*USD/)
  await expect(ticket).toBeInViewport()
  await page.keyboard.press("Enter")
  const dialog = page.getByRole("dialog")
  await expect(dialog.getByTestId("review")).toBeVisible()
  const checks = dialog.getByTestId("review-checks")
  await expect(checks.getByTestId("review-checks-verdict")).toHaveText("Over your limit per order of 50,000.00 USD: the console will refuse it.")
  await expect(dialog.getByTestId("review-base-amount")).toContainText("250.00000000")
  await expect(dialog.getByTestId("review-quote-amount")).toContainText(/[\d,]+\.\d\d/)
  await expect(checks.getByTestId("review-checks-available")).toContainText("available")
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
  await expect(dialog.getByTestId("edit-order")).toBeFocused()
  await testInfo.attach("unit slip in review", { body: await page.screenshot(), contentType: "image/png" })
  // Enter edits the order: back in the amount, nothing sent.
  await page.keyboard.press("Enter")
  await expect(dialog.getByTestId("review")).toHaveCount(0)
  await expect(amount).toBeFocused()
  expect(posts()).toBe(0)

  // The server refuses the same order too: the console's rule is the server's.
  const quoteId = await page.evaluate(async () => {
    const res = await fetch("/api/quotes?markets=BTCUSD")
    const { items } = (await res.json()) as { items: { id: string; side: string }[] }
    return items.find((q) => q.side === "BUY")?.id ?? ""
  })
  const profiles = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const treasury = profiles.items.find((p) => p.nickname === "Treasury")?.id ?? ""
  const sent = await page.request.post(`/api/profiles/${treasury}/quote-executions`, {
    headers: { origin: origin() },
    data: { quote_id: quoteId, base_amount: "250", ref_id: crypto.randomUUID() },
  })
  expect(sent.status()).toBe(422)
  const problem = (await sent.json()) as { code: string; detail: string }
  expect(problem.code).toBe("limit_exceeded")
  expect(problem.detail).toMatch(/^This order of [\d,]+\.\d\d USD is over your limit per order of 50,000\.00 USD\.$/)
})

test("the unit is remembered per market across a reload, U switches it, and the figure is read in the new unit", async ({ page }) => {
  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  await page.locator("body").focus()
  await page.keyboard.press("b")
  const form = page.getByTestId("execute-form")
  await expect(page.getByTestId("amount")).toBeFocused()
  await expect(form.getByText("Amount in BTC", { exact: true })).toBeVisible()
  await page.keyboard.type("250")
  await page.keyboard.press("u")
  await expect(form.getByText("Amount in USD", { exact: true })).toBeVisible()
  await expect(page.getByTestId("amount")).toHaveValue("250")
  await expect(form.getByTestId("unit-hint")).toHaveText("U switches to BTC.")
  await expect(form.getByTestId("pre-trade-verdict")).toHaveText("Within your limits; no approval needed.")
  await expect(form.getByTestId("pre-trade-size")).toContainText(/250\.00\s*USD\s*=\s*0\.\d{8}\s*BTC/)
  await page.reload()
  await expect(page.getByLabel("Profile", { exact: true })).toBeEnabled()
  await expect(page.getByTestId("quote-BUY").getByTestId("quote-price")).toBeVisible()
  await deskKeysWork(page)
  await buyQuoteLive(page)
  await page.keyboard.press("b")
  await expect(page.getByTestId("amount")).toBeFocused()
  await expect(page.getByTestId("execute-form").getByText("Amount in USD", { exact: true })).toBeVisible()
  // Another market keeps its own unit.
  await page.getByTestId("market-ETHUSD").getByRole("button", { name: "ETHUSD", exact: true }).click()
  await page.getByTestId("choose-BUY").click()
  await expect(page.getByTestId("execute-form").getByText("Amount in ETH", { exact: true })).toBeVisible()
})

test("an order at or over the approval threshold says so before Confirm: 'Submit for approval'", async ({ page }) => {
  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  const form = await startTrade(page, "BUY", "fiat", "12000")
  await expect(form.getByTestId("pre-trade-approval")).toContainText(/Needed \(at or over 10,000\.00\s*USD\)/)
  await expect(form.getByTestId("pre-trade-verdict")).toHaveText("Needs a second person's approval: it is submitted for approval, not placed.")
  const dialog = await review(page)
  await expect(dialog.getByTestId("confirm-button")).toHaveText("Submit for approval")
  await expect(dialog.getByTestId("confirm-button")).toBeFocused()
  await dialog.getByRole("button", { name: "Cancel" }).click()
})

test("a large order asks for its amount again before Confirm opens", async ({ page }) => {
  await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
  await startTrade(page, "BUY", "fiat", "30000")
  const dialog = await review(page)
  const retype = dialog.getByTestId("retype-amount")
  await expect(retype).toBeFocused()
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
  await retype.fill("3000")
  await expect(dialog.getByTestId("retype-hint")).toHaveText("Does not match the amount under review.")
  await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
  // Pasted with separators, the same amount matches.
  await retype.fill("30,000.00")
  await expect(dialog.getByTestId("retype-hint")).toHaveText("Matches.")
  await expect(dialog.getByTestId("confirm-button")).toBeEnabled()
  await dialog.getByRole("button", { name: "Cancel" }).click()
})

test("after a definite refusal Confirm is off and Enter goes to Edit order: one POST", async ({ page }) => {
  // The service's own maximum (50,000 USD), with the console's limits lifted so the order reaches it.
  await withoutPolicyLimits(origin(), async () => {
    await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
    const form = await startTrade(page, "BUY", "fiat", "60000.00")
    const dialog = await review(page)
    const posts = countPosts(page)
    await expect(dialog.getByTestId("confirm-button")).toBeFocused()
    await page.keyboard.press("Enter")
    await expect(dialog.getByRole("alert").first()).toBeVisible()
    await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
    await expect(dialog.getByTestId("edit-order")).toBeFocused()
    await page.keyboard.press("Enter")
    await expect(form.getByTestId("amount")).toBeFocused()
    expect(posts()).toBe(1)
  })
})

test.describe("conversions (finding 5)", () => {
  test("no 7th metadata row; Review says why it does not open; a 99,999,999,999 USD conversion cannot be confirmed", async ({ page }) => {
    await page.goto("/conversions/new")
    await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Treasury" })
    await page.getByLabel("From (source asset)").selectOption("USD")
    await page.getByLabel("To (target asset)").selectOption("USDP")
    const add = page.getByRole("button", { name: "Add metadata" })
    for (let i = 1; i <= 6; i++) await add.click()
    await expect(add).toBeDisabled()
    await expect(page.getByLabel("Key 7", { exact: true })).toHaveCount(0)
    for (let i = 6; i >= 1; i--) await page.getByRole("button", { name: `Remove metadata row ${i}` }).click()

    await page.getByLabel(/^Amount/).fill("12.345")
    await page.getByRole("button", { name: "Review" }).click()
    await expect(page.getByTestId("review-blocked")).toContainText("Fix Amount first")
    await expect(page.getByRole("dialog")).toHaveCount(0)

    await page.getByLabel(/^Amount/).fill("99999999999")
    await page.getByRole("button", { name: "Review" }).click()
    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
    await expect(dialog.getByTestId("review-checks-verdict")).toHaveText("Over your limit per order of 50,000.00 USD: the console will refuse it.")
    await expect(dialog.getByTestId("shortfall")).toContainText("Insufficient funds")
    await expect(dialog.getByTestId("review-checks-approval")).toContainText("Needed")
    await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
  })

  test("a large conversion asks for its amount again before Confirm opens, as the trade ticket does", async ({ page }) => {
    let posts = 0
    page.on("request", (r) => {
      if (r.method() === "POST" && r.url().endsWith("/api/conversions")) posts++
    })
    await page.goto("/conversions/new")
    await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Treasury" })
    await page.getByLabel("From (source asset)").selectOption("USD")
    await page.getByLabel("To (target asset)").selectOption("USDP")
    await page.getByLabel(/^Amount/).fill("30000")
    await page.getByRole("button", { name: "Review" }).click()
    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
    // Over the 25,000.00 USD of the policy's retype_amount_over: typed again first.
    const retype = dialog.getByTestId("retype-amount")
    await expect(retype).toBeFocused()
    await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
    await retype.fill("3000")
    await expect(dialog.getByTestId("retype-hint")).toHaveText("Does not match the amount under review.")
    await expect(dialog.getByTestId("confirm-button")).toBeDisabled()
    // Enter on a wrong amount sends nothing and leaves the review as it is.
    await page.keyboard.press("Enter")
    await expect(retype).toBeFocused()
    await expect(retype).toHaveValue("3000")
    await retype.fill("30,000.00")
    await expect(dialog.getByTestId("retype-hint")).toHaveText("Matches.")
    await expect(dialog.getByTestId("confirm-button")).toBeEnabled()
    // The review's ids are chips: the whole ref_id on one line, with its copy button.
    await expect(dialog.getByTestId("review-ref-id")).toHaveText(/^[0-9a-f-]{36}$/)
    await expect(dialog.getByTestId("id-chip").filter({ has: page.getByTestId("review-ref-id") }).getByRole("button", { name: "Copy ref_id" })).toBeVisible()
    await dialog.getByRole("button", { name: "Back" }).click()
    // Under the size, no retyping.
    await page.getByLabel(/^Amount/).fill("100")
    await page.getByRole("button", { name: "Review" }).click()
    await expect(dialog.getByTestId("review-amount")).toContainText("100.00")
    await expect(dialog.getByTestId("retype-amount")).toHaveCount(0)
    await expect(dialog.getByTestId("confirm-button")).toBeEnabled()
    await dialog.getByRole("button", { name: "Back" }).click()
    expect(posts).toBe(0)
  })
})

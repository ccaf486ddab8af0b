import AxeBuilder from "@axe-core/playwright"
import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import { setSettleDelay, storageStateOf } from "./helpers"
import { withoutPolicyLimits } from "./policy"

// The conversions desk, against the production build and the embedded sandbox: create,
// follow, cancel, look up and export conversions, per role.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Conversion {
  id: string
  status: string
  ref_id?: string
  amount?: string
  profile_id?: string
  source_asset?: string
  target_asset?: string
}
interface Problem {
  status: number
  title: string
  detail?: string
  meta?: { fields?: Record<string, string>; existing?: Conversion }
}

/** Screenshots for people to look at, beside the run's other output. */
async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/${process.env.E2E_PORT ?? "3100"}/screens/conversions-${name}.png`, fullPage: true })
}

function baseURL(): string {
  return `http://127.0.0.1:${process.env.E2E_PORT ?? "3100"}`
}

async function apiAs(role: "viewer" | "support" | "trader" | "admin"): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL: baseURL(), storageState: storageStateOf(role), extraHTTPHeaders: { origin: baseURL() } })
}

async function profileId(api: APIRequestContext, nickname: string): Promise<string> {
  const res = await api.get("/api/profiles")
  expect(res.status()).toBe(200)
  const { items } = (await res.json()) as { items: { id: string; nickname: string }[] }
  const found = items.find((p) => p.nickname === nickname)
  if (!found) throw new Error(`no profile ${nickname}`)
  return found.id
}

async function available(api: APIRequestContext, profile: string, asset: string): Promise<string> {
  const res = await api.get(`/api/profiles/${profile}/balances`)
  const { items } = (await res.json()) as { items: { asset: string; available: string }[] }
  return items.find((b) => b.asset === asset)?.available ?? "0"
}

async function createConversion(api: APIRequestContext, body: Record<string, unknown>): Promise<Conversion> {
  const res = await api.post("/api/conversions", { data: { ref_id: crypto.randomUUID(), ...body } })
  expect(res.status(), await res.text()).toBe(200)
  return (await res.json()) as Conversion
}

async function getConversion(api: APIRequestContext, id: string): Promise<Conversion> {
  return (await (await api.get(`/api/conversions/${id}`)).json()) as Conversion
}

/** Two-decimal string comparison without floats: "1,234.50" and "1234.5" are the same amount. */
function cents(text: string): bigint {
  const clean = text.replace(/[^0-9.]/g, "")
  const [whole = "0", fraction = ""] = clean.split(".")
  return BigInt(whole) * 100n + BigInt((fraction + "00").slice(0, 2))
}

async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([])
}

async function fillForm(page: Page, options: { profile: string; source: string; target?: string; amount: string }) {
  await page.getByLabel("Profile", { exact: true }).selectOption({ label: options.profile })
  await page.getByLabel("From (source asset)").selectOption(options.source)
  if (options.target) await page.getByLabel("To (target asset)").selectOption(options.target)
  await page.getByLabel(/^Amount/).fill(options.amount)
}

test.describe("trader", () => {
  test.use({ storageState: storageStateOf("trader") })

  test("mints USD → USDP and watches it settle; a double click places it once", async ({ page }) => {
    const trader = await apiAs("trader")
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Treasury", source: "USD", target: "USDP", amount: "125.50" })
    await expect(page.getByTestId("source-balance")).toContainText("Available:")
    await page.getByRole("button", { name: "Add metadata" }).click()
    await page.getByLabel("Key 1").fill("desk")
    await page.getByLabel("Value 1").fill("e2e mint")
    await page.getByRole("button", { name: "Review" }).click()

    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByTestId("review-amount")).toHaveText(/^125\.50\s*USD$/)
    await expect(dialog).toContainText("USDP")
    await expect(dialog).toContainText("desk: e2e mint")
    const refId = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    await shot(page, "review-dialog")
    expect(refId).toMatch(UUID)
    // The browser must send one request: the server's replay of a second one would hide a double send.
    let posts = 0
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/api/conversions") posts++
    })
    await dialog.getByRole("button", { name: "Confirm conversion" }).dblclick()

    await expect(page.getByText("Conversion created")).toBeVisible()
    const record = page.getByTestId("conversion-record")
    // The dialog and the form are gone: the keyboard is on the record.
    await expect(record.getByTestId("conversion-heading")).toBeFocused()
    await expect(record.getByTestId("conversion-ref-id")).toContainText(refId)
    await expect(record.getByTestId("conversion-created-at")).toHaveText(/UTC$/)
    await expect(record.getByTestId("status")).toHaveText("SETTLED", { timeout: 15_000 })
    await expect(record.getByTestId("conversion-settled-at")).toHaveText(/UTC$/)
    await expect(record.getByTestId("timeline-settled")).toBeVisible()
    await shot(page, "minted-settled")

    expect(posts).toBe(1)
    const listed = (await (await trader.get(`/api/conversions?ref_id=${refId}`)).json()) as { items: Conversion[] }
    expect(listed.items).toHaveLength(1)
    expect(listed.items[0]).toMatchObject({ amount: "125.5", source_asset: "USD", target_asset: "USDP", status: "SETTLED" })
    await trader.dispose()
  })

  test("after a lost answer, 'Start a new submission' first asks whether the first was placed: never a second conversion", async ({ page }) => {
    const trader = await apiAs("trader")
    const withRef = async (ref: string) => ((await (await trader.get(`/api/conversions?ref_id=${ref}`)).json()) as { items: Conversion[] }).items
    let posts = 0
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/api/conversions") posts++
    })
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Treasury", source: "USD", target: "PYUSD", amount: "33.30" })
    await page.getByRole("button", { name: "Review" }).click()
    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
    const firstRef = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""

    // 1. The request reaches the console and is placed; the answer never reaches the browser.
    await page.route("**/api/conversions", async (route) => {
      if (route.request().method() !== "POST") return route.fallback()
      await route.fetch()
      await route.abort("connectionreset")
    })
    await dialog.getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByText("No answer from the console")).toBeVisible()
    await expect(page.getByTestId("unknown-outcome-note")).toContainText(firstRef)
    await page.unrouteAll({ behavior: "ignoreErrors" })
    await page.getByRole("button", { name: "Start a new submission" }).click()
    await expect(page.getByText("Your earlier submission was placed")).toBeVisible()
    const record = page.getByTestId("conversion-record")
    await expect(record.getByTestId("conversion-ref-id")).toContainText(firstRef)
    await expect(record.getByTestId("conversion-amount")).toHaveText(/33\.30\s*USD/)
    await expect(record.getByTestId("conversion-heading")).toBeFocused()
    await shot(page, "unknown-outcome-resolved")
    expect(posts).toBe(1)
    expect(await withRef(firstRef)).toHaveLength(1)

    // 2. The request never reaches the console: nothing was placed, so a new submission starts.
    await page.getByRole("button", { name: "New conversion" }).click()
    await expect(page.getByLabel(/^Amount/)).toBeFocused()
    await fillForm(page, { profile: "Treasury", source: "USD", target: "PYUSD", amount: "44.40" })
    await page.getByRole("button", { name: "Review" }).click()
    const secondRef = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    expect(secondRef).not.toBe(firstRef)
    await page.route("**/api/conversions", (route) => (route.request().method() === "POST" ? route.abort("connectionreset") : route.fallback()))
    await dialog.getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByText("No answer from the console")).toBeVisible()
    await page.unrouteAll({ behavior: "ignoreErrors" })
    await page.getByRole("button", { name: "Start a new submission" }).click()
    await expect(page.getByRole("button", { name: "Review" })).toBeFocused()
    await expect(page.getByLabel(/^Amount/)).toHaveValue("44.40")
    await page.keyboard.press("Enter")
    const thirdRef = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    expect(thirdRef).toMatch(UUID)
    expect(thirdRef).not.toBe(secondRef)
    await dialog.getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByText("Conversion created")).toBeVisible()
    await expect(record.getByTestId("conversion-ref-id")).toContainText(thirdRef)
    expect(await withRef(secondRef)).toHaveLength(0)
    expect(await withRef(thirdRef)).toHaveLength(1)
    await trader.dispose()
  })

  test("a reload after an unanswered conversion shows what became of it and sends nothing without a click", async ({ page }) => {
    const trader = await apiAs("trader")
    const withRef = async (ref: string) => ((await (await trader.get(`/api/conversions?ref_id=${ref}`)).json()) as { items: Conversion[] }).items
    let posts = 0
    page.on("request", (r) => {
      if (r.method() === "POST" && new URL(r.url()).pathname === "/api/conversions") posts++
    })
    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })

    // 1. The request reaches the console and is placed; the page never sees the answer (the reload drops it).
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Treasury", source: "USD", target: "USDG", amount: "21.10" })
    await page.getByRole("button", { name: "Review" }).click()
    const placedRef = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    let reached!: () => void
    const delivered = new Promise<void>((resolve) => (reached = resolve))
    await page.route("**/api/conversions", async (route) => {
      if (route.request().method() !== "POST") return route.fallback()
      await route.fetch()
      reached()
    })
    await dialog.getByRole("button", { name: "Confirm conversion" }).click()
    await delivered
    posts = 0
    // Reload while the page's request is still held, and only then drop the route. Dropped
    // first, the browser let the held request go on (interception off releases it): the
    // console replayed the answer, the page saw it before the reload, and nothing was left to resume.
    await page.reload()
    await page.unrouteAll({ behavior: "ignoreErrors" })
    await expect(page.getByText("Your earlier submission was placed")).toBeVisible()
    await expect(page.getByTestId("conversion-record").getByTestId("conversion-ref-id")).toContainText(placedRef)
    await shot(page, "resumed-placed")
    expect(posts).toBe(0)
    expect(await withRef(placedRef)).toHaveLength(1)
    // Done: another reload resumes nothing.
    await page.reload()
    await expect(page.getByRole("button", { name: "Review" })).toBeVisible()
    await expect(page.getByTestId("conversion-record")).toHaveCount(0)

    // 2. The request never reaches the console: after a reload it is offered again, not sent.
    await fillForm(page, { profile: "Treasury", source: "USD", target: "USDG", amount: "22.20" })
    await page.getByRole("button", { name: "Review" }).click()
    const lostRef = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
    await page.route("**/api/conversions", (route) => (route.request().method() === "POST" ? route.abort("connectionreset") : route.fallback()))
    await dialog.getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByText("No answer from the console")).toBeVisible()
    await page.unrouteAll({ behavior: "ignoreErrors" })
    posts = 0
    await page.reload()
    await expect(dialog.getByTestId("not-placed-note")).toContainText("Not placed yet, as far as the console can tell: place it now?")
    await expect(dialog.getByTestId("review-ref-id")).toHaveText(lostRef)
    await expect(dialog.getByTestId("review-amount")).toHaveText(/^22\.20\s*USD$/)
    await shot(page, "resumed-not-placed")
    await page.waitForTimeout(2000)
    expect(posts).toBe(0)
    expect(await withRef(lostRef)).toHaveLength(0)
    // Only the click sends it: once, with the same ref_id.
    await dialog.getByRole("button", { name: "Place it now" }).click()
    await expect(page.getByText("Conversion created")).toBeVisible()
    await expect(page.getByTestId("conversion-record").getByTestId("conversion-ref-id")).toContainText(lostRef)
    expect(posts).toBe(1)
    expect(await withRef(lostRef)).toHaveLength(1)
    await trader.dispose()
  })

  test("redeems PYUSD → USD using the keyboard only", async ({ page }) => {
    await page.goto("/conversions/new")
    await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Client omnibus" })
    await expect(page.getByTestId("source-balance")).toContainText("USD")
    await page.getByLabel("From (source asset)").focus()
    await page.keyboard.press("ArrowDown") // USDP
    await page.keyboard.press("ArrowDown") // PYUSD
    await expect(page.getByLabel("From (source asset)")).toHaveValue("PYUSD")
    // A stablecoin only converts to USD: the target narrows to it.
    await expect(page.getByLabel("To (target asset)")).toHaveValue("USD")
    await expect(page.getByLabel("To (target asset)").locator("option")).toHaveText(["USD"])
    await page.keyboard.press("Tab")
    await page.keyboard.press("Tab")
    await expect(page.getByLabel(/^Amount/)).toBeFocused()
    await page.keyboard.type("40")
    await page.keyboard.press("Enter")
    const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
    await expect(dialog).toBeVisible()
    await expect(dialog.getByTestId("review-amount")).toHaveText(/^40\.00\s*PYUSD$/)
    // The review opens on Confirm (its ids' copy buttons are before it in the tab order).
    await expect(dialog.getByRole("button", { name: "Confirm conversion" })).toBeFocused()
    await page.keyboard.press("Enter")
    const record = page.getByTestId("conversion-record")
    await expect(record.getByTestId("conversion-heading")).toBeFocused()
    await expect(record.getByTestId("conversion-amount")).toHaveText(/40\.00\s*PYUSD/)
    await expect(record.getByTestId("status")).toHaveText("SETTLED", { timeout: 15_000 })
  })

  test("a 3-decimal amount and a stablecoin → stablecoin pair are refused in the form and by the API", async ({ page }) => {
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Treasury", source: "USD", target: "USDG", amount: "1.234" })
    await expect(page.getByText("Amount: at most 2 decimals")).toBeVisible()
    await page.getByRole("button", { name: "Review" }).click()
    await expect(page.getByRole("dialog")).toHaveCount(0)
    await page.getByLabel(/^Amount/).fill("0")
    await expect(page.getByText("Amount must be more than 0")).toBeVisible()

    // USDG was the target: choosing a stablecoin as the source leaves USD as the only target.
    await page.getByLabel("From (source asset)").selectOption("USDP")
    await expect(page.getByLabel("To (target asset)").locator("option")).toHaveText(["USD"])
    await expect(page.getByLabel("To (target asset)")).toHaveValue("USD")

    const trader = await apiAs("trader")
    const profile = await profileId(trader, "Treasury")
    const decimals = await trader.post("/api/conversions", {
      data: { profile_id: profile, amount: "1.234", source_asset: "USD", target_asset: "USDP", ref_id: crypto.randomUUID() },
    })
    expect(decimals.status()).toBe(400)
    expect(((await decimals.json()) as Problem).meta?.fields).toEqual({ amount: "at most 2 decimals" })
    const pair = await trader.post("/api/conversions", {
      data: { profile_id: profile, amount: "5.00", source_asset: "USDP", target_asset: "PYUSD", ref_id: crypto.randomUUID() },
    })
    expect(pair.status()).toBe(400)
    expect(((await pair.json()) as Problem).meta?.fields?.target_asset).toContain("stablecoin to stablecoin is not allowed")
    await trader.dispose()
  })

  test("the service's refusals in plain words: above the maximum, insufficient funds; a taken ref_id is a 409", async ({ page }) => {
    // The service's own refusals: the console's approval threshold and limits are lifted meanwhile.
    await withoutPolicyLimits(baseURL(), async () => {
      await page.goto("/conversions/new")
      await fillForm(page, { profile: "Treasury", source: "USD", target: "USDP", amount: "1000001" })
      await page.getByRole("button", { name: "Review" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Confirm conversion" }).click()
      await expect(page.getByRole("alert").filter({ hasText: "Check the form" })).toContainText("amount: above the maximum")
      await expect(page.getByText("Amount: above the maximum 1000000 USD per conversion", { exact: true })).toBeVisible()

      await fillForm(page, { profile: "Operations float", source: "USD", target: "USDG", amount: "900000.00" })
      await expect(page.getByTestId("shortfall")).toContainText("Needed 900,000.00 USD, available")
      await page.getByRole("button", { name: "Review" }).click()
      await page.getByRole("dialog").getByRole("button", { name: "Confirm conversion" }).click()
      const funds = page.getByRole("alert").filter({ hasText: "Insufficient funds" })
      await expect(funds).toContainText("Needed 900,000.00 USD, available")
      await shot(page, "insufficient-funds")
    })

    // A ref_id another record already owns: the service's 409 with that record.
    const trader = await apiAs("trader")
    const profile = await profileId(trader, "Treasury")
    const taken = await createConversion(trader, { profile_id: profile, amount: "3.00", source_asset: "USD", target_asset: "USDP" })
    const res = await trader.post("/api/conversions", {
      data: { profile_id: profile, amount: "4.00", source_asset: "USD", target_asset: "USDP", ref_id: taken.ref_id },
    })
    expect(res.status()).toBe(409)
    await trader.dispose()
  })
})

test.describe.serial("cancelling (long settle delay)", () => {
  test.use({ storageState: storageStateOf("trader") })
  let admin: APIRequestContext
  let trader: APIRequestContext
  let previousDelay = 1500

  test.beforeAll(async () => {
    admin = await apiAs("admin")
    trader = await apiAs("trader")
    previousDelay = await setSettleDelay(admin, 60_000)
  })

  test.afterAll(async () => {
    await setSettleDelay(admin, previousDelay)
    await admin.dispose()
    await trader.dispose()
  })

  test("support sees no Cancel on a conversion that is still CREATED; a trader does, on the same record", async ({ page, browser, baseURL }) => {
    const pending = await createConversion(trader, {
      profile_id: await profileId(trader, "Treasury"),
      amount: "8.80",
      source_asset: "USD",
      target_asset: "USDP",
    })
    const supportContext = await browser.newContext({ storageState: storageStateOf("support"), baseURL: baseURL! })
    const support = await supportContext.newPage()
    await support.goto(`/conversions/${pending.id}`)
    await expect(support.getByTestId("conversion-id")).toContainText(pending.id)
    await expect(support.getByTestId("status")).toHaveText("CREATED")
    await expect(support.getByRole("button", { name: "Cancel conversion" })).toHaveCount(0)

    await page.goto(`/conversions/${pending.id}`)
    await expect(page.getByTestId("status")).toHaveText("CREATED")
    await expect(page.getByRole("button", { name: "Cancel conversion" })).toBeVisible()
    // Still pending, so the support view above was of a cancellable record.
    expect((await getConversion(trader, pending.id)).status).toBe("CREATED")
    await supportContext.close()
  })

  test("cancels a pending conversion: CANCELLED, and the USD is refunded", async ({ page }) => {
    const profile = await profileId(trader, "Operations float")
    const before = await available(trader, profile, "USD")
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Operations float", source: "USD", target: "USDG", amount: "321.00" })
    await page.getByRole("button", { name: "Review" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByTestId("conversion-record").getByTestId("status")).toHaveText("CREATED")
    await page.getByRole("link", { name: "Open its page" }).click()
    await expect(page).toHaveURL(/\/conversions\/[0-9a-f-]{36}$/)

    // One timeline on the page: the record's story.
    await expect(page.getByRole("heading", { name: "Timeline" })).toHaveCount(1)
    await expect.poll(async () => cents(await page.getByTestId("balance-USD").innerText())).toBe(cents(before) - 32100n)
    await page.getByRole("button", { name: "Cancel conversion" }).click()
    const dialog = page.getByRole("dialog", { name: "Cancel this conversion?" })
    await expect(dialog).toContainText(/321\.00\s*USD/)
    await dialog.getByRole("button", { name: "Cancel conversion" }).click()

    await expect(page.getByText("Conversion cancelled")).toBeVisible()
    await expect(page.getByTestId("status")).toHaveText("CANCELLED")
    // The dialog closed and its opener is gone: the keyboard is on the record.
    await expect(page.getByTestId("conversion-heading")).toBeFocused()
    await expect(page.getByTestId("conversion-cancelled-at")).toHaveText(/UTC$/)
    // The story names who cancelled it.
    await expect(page.getByTestId("record-story").getByRole("listitem").filter({ hasText: /^Cancelled/ })).toContainText("trader@example.com")
    await expect(page.getByRole("button", { name: "Cancel conversion" })).toHaveCount(0)
    await expect.poll(async () => cents(await page.getByTestId("balance-USD").innerText())).toBe(cents(before))
    await shot(page, "cancelled")
    expect(await available(trader, profile, "USD")).toBe(before)
  })

  test("the outcome card that says it can still be cancelled offers Cancel", async ({ page }) => {
    await page.goto("/conversions/new")
    await fillForm(page, { profile: "Operations float", source: "USD", target: "USDG", amount: "12.34" })
    await page.getByRole("button", { name: "Review" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Confirm conversion" }).click()
    const record = page.getByTestId("conversion-record")
    await expect(record.getByTestId("status")).toHaveText("CREATED")
    await expect(record).toContainText("a trader can still cancel it")
    await page.getByRole("button", { name: "Cancel conversion" }).click()
    await page.getByRole("dialog", { name: "Cancel this conversion?" }).getByRole("button", { name: "Cancel conversion" }).click()
    // On the page itself (a toast says it too).
    await expect(page.locator("#main").getByText("Conversion cancelled", { exact: true })).toBeVisible()
    await expect(record.getByTestId("status")).toHaveText("CANCELLED")
    await expect(page.getByRole("button", { name: "Cancel conversion" })).toHaveCount(0)
  })

  test("cancelling one that settled meanwhile shows the service's conflict and the fresh record", async ({ page }) => {
    const profile = await profileId(trader, "Operations float")
    const pending = await createConversion(trader, { profile_id: profile, amount: "12.00", source_asset: "USD", target_asset: "PYUSD" })
    await page.goto(`/conversions/${pending.id}`)
    await expect(page.getByTestId("status")).toHaveText("CREATED")
    await page.getByRole("button", { name: "Cancel conversion" }).click()
    const dialog = page.getByRole("dialog", { name: "Cancel this conversion?" })
    await expect(dialog).toBeVisible()

    // It settles while the trader is deciding.
    await setSettleDelay(admin, 0)
    await expect.poll(async () => (await getConversion(trader, pending.id)).status, { timeout: 15_000 }).toBe("SETTLED")
    await setSettleDelay(admin, 60_000)
    await dialog.getByRole("button", { name: "Cancel conversion" }).click()

    const refusal = page.getByRole("alert").filter({ hasText: "Not cancelled" })
    await expect(refusal).toContainText("it is no longer pending")
    await expect(refusal.getByTestId("cancel-problem")).toContainText("its status is SETTLED")
    await expect(page.getByTestId("status")).toHaveText("SETTLED")
    await expect(page.getByTestId("conversion-settled-at")).toHaveText(/UTC$/)
    await expect(page.getByRole("button", { name: "Cancel conversion" })).toHaveCount(0)
    await shot(page, "cancel-conflict")
  })
})

test.describe("support", () => {
  test.use({ storageState: storageStateOf("support") })

  test("finds a conversion by id and by ref_id in seconds, and sees no Create or Cancel", async ({ page }) => {
    const trader = await apiAs("trader")
    const created = await createConversion(trader, {
      profile_id: await profileId(trader, "Treasury"),
      amount: "77.70",
      source_asset: "USD",
      target_asset: "USDG",
    })
    await trader.dispose()

    await page.goto("/conversions")
    await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Conversions" })).toBeVisible()
    await expect(page.getByRole("link", { name: "New conversion" })).toHaveCount(0)
    const box = page.getByLabel("Conversion id or ref_id")
    const started = Date.now()
    await box.fill(created.id)
    await box.press("Enter")
    await expect(page).toHaveURL(`/conversions/${created.id}`)
    await expect(page.getByTestId("conversion-id")).toContainText(created.id)
    expect(Date.now() - started).toBeLessThan(10_000)
    await expect(page.getByTestId("conversion-amount")).toHaveText(/77\.70\s*USD/)

    await page.goto("/conversions")
    await page.getByLabel("Conversion id or ref_id").fill(created.ref_id ?? "")
    await page.getByRole("button", { name: "Find" }).click()
    await expect(page).toHaveURL(`/conversions/${created.id}`)
    await expect(page.getByTestId("conversion-ref-id")).toContainText(created.ref_id ?? "")

    await page.goto("/conversions")
    // Any text can be a ref_id (another client of the service chose it): looked up, not refused.
    await page.getByLabel("Conversion id or ref_id").fill("  not an id  ")
    await page.getByRole("button", { name: "Find" }).click()
    await expect(page.getByText("No conversion has the id or ref_id “not an id”")).toBeVisible()
    await page.getByLabel("Conversion id or ref_id").fill("x".repeat(256))
    await page.getByRole("button", { name: "Find" }).click()
    await expect(page.getByText("The id or ref_id: at most 255 characters")).toBeVisible()
    await page.getByLabel("Conversion id or ref_id").fill("")
    await page.getByRole("button", { name: "Find" }).click()
    await expect(page.getByText("The id or ref_id is required")).toBeVisible()
    await page.getByLabel("Conversion id or ref_id").fill("no-such-conversion-42")
    await page.getByRole("button", { name: "Find" }).click()
    await expect(page.getByText("No conversion has the id or ref_id “no-such-conversion-42”")).toBeVisible()
    await expect(page).toHaveURL(/\/conversions$/)
    await shot(page, "lookup-unknown")

    // A ref_id in the address bar goes to the record; an unknown id says so.
    await page.goto(`/conversions/${created.ref_id}`)
    await expect(page).toHaveURL(`/conversions/${created.id}`)
    await page.goto(`/conversions/${crypto.randomUUID()}`)
    await expect(page.getByTestId("not-found")).toContainText("No conversion has the id or ref_id")

    await page.goto("/conversions/new")
    await expect(page.getByText("You need the trader role")).toBeVisible()
    await expect(page.getByRole("form", { name: "New conversion" })).toHaveCount(0)
  })

  test("the table pages with Load more, and the CSV export holds exactly the filtered rows", async ({ page, context }) => {
    const trader = await apiAs("trader")
    const profile = await profileId(trader, "Client omnibus")
    for (let i = 0; i < 27; i++) {
      await createConversion(trader, { profile_id: profile, amount: `${i + 1}.25`, source_asset: "USD", target_asset: "USDP" })
    }
    await trader.dispose()
    const today = new Date().toISOString().slice(0, 10)

    await page.goto("/conversions")
    await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Client omnibus" })
    await page.getByLabel("Created from (UTC)").fill(today)
    await page.getByLabel("Created to (UTC)").fill(today)
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect(page).toHaveURL(new RegExp(`profile_id=${profile}.*created_from=${today}`))
    await expect(page.getByTestId("conversion-row")).toHaveCount(25)
    await expect(page.getByTestId("row-count")).toContainText("more are available")
    const rows = page.getByTestId("conversion-row")
    while (await page.getByRole("button", { name: "Load more" }).isVisible()) {
      const shown = await rows.count()
      await page.getByRole("button", { name: "Load more" }).click()
      await expect.poll(() => rows.count()).toBeGreaterThan(shown)
    }
    const ids = await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-id") ?? ""))
    expect(ids.length).toBeGreaterThanOrEqual(27)
    await shot(page, "table-filtered")
    await expect(page.getByTestId("status").first()).toBeVisible()

    const href = await page.getByTestId("export-csv").getAttribute("href")
    expect(href).toContain(`profile_id=${profile}`)
    const csv = await page.request.get(href ?? "")
    expect(csv.status()).toBe(200)
    expect(csv.headers()["content-type"]).toContain("text/csv")
    const lines = (await csv.text()).trim().split("\r\n")
    const header = lines[0]?.split(",") ?? []
    expect(header.slice(0, 7)).toEqual(["id", "ref_id", "status", "profile_id", "source_asset", "target_asset", "amount"])
    const csvRows = lines.slice(1).map((line) => line.split(","))
    expect(csvRows.map((r) => r[0])).toEqual(ids)
    expect(new Set(csvRows.map((r) => r[3]))).toEqual(new Set([profile]))

    // A row's ref_id is a one-line chip: its first 8 characters on screen, the whole id for
    // screen readers (its name), on hover and for the copy button.
    const firstRef = csvRows[0]?.[1] ?? ""
    expect(firstRef).toMatch(UUID)
    const refCell = rows.first().getByTestId("row-ref-id")
    await expect(refCell.getByTestId("id-chip")).toHaveText(new RegExp(`^${firstRef.slice(0, 8)}…`))
    await expect(refCell.getByLabel(`ref_id ${firstRef.slice(0, 8)} ${firstRef}`)).toHaveAttribute("title", firstRef)
    await context.grantPermissions(["clipboard-read", "clipboard-write"])
    await refCell.getByRole("button", { name: /^Copy ref_id/ }).click()
    await expect(refCell.getByRole("button", { name: /^Copied ref_id/ })).toBeVisible()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstRef)

    // A filter that selects nothing: an empty table and a CSV with only its header.
    await page.getByLabel("Updated from (UTC)").fill("2099-01-01")
    await page.getByRole("button", { name: "Apply filters" }).click()
    await expect(page.getByTestId("no-rows")).toBeVisible()
    const empty = await page.request.get((await page.getByTestId("export-csv").getAttribute("href")) ?? "")
    expect((await empty.text()).trim().split("\r\n")).toHaveLength(1)

    // A range that ends before it starts is refused under the field.
    await page.getByLabel("Updated to (UTC)").fill("2098-01-01")
    await expect(page.getByText("Updated to must be on or after “Updated from”")).toBeVisible()
  })
})

test.describe("viewer", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("gets 403 from the conversions API and a plain message on the pages", async ({ page }) => {
    const viewer = await apiAs("viewer")
    for (const path of ["/api/conversions", "/api/conversions/export", "/api/conversions/lookup?q=abc", `/api/conversions/${crypto.randomUUID()}`]) {
      const res = await viewer.get(path)
      expect(`${path} ${res.status()}`).toBe(`${path} 403`)
      expect(res.headers()["content-type"]).toContain("application/problem+json")
    }
    const post = await viewer.post("/api/conversions", {
      data: { profile_id: "x", amount: "1.00", source_asset: "USD", target_asset: "USDP", ref_id: crypto.randomUUID() },
    })
    expect(post.status()).toBe(403)
    await viewer.dispose()

    // No Conversions link for a viewer (the pages and API are support and up); the address says so plainly.
    await page.goto("/")
    const nav = page.getByRole("navigation", { name: "Main" })
    await expect(nav.getByRole("link", { name: "Trade" })).toBeVisible()
    await expect(nav.getByRole("link", { name: "Conversions" })).toHaveCount(0)
    await page.goto("/conversions")
    await expect(page.getByText("You need the support role")).toBeVisible()
    await expect(page.getByTestId("role-notice")).toContainText("you are signed in as viewer")
    await expect(page.getByLabel("Conversion id or ref_id")).toHaveCount(0)
    await expectNoSeriousA11yViolations(page)
  })
})

test.describe("accessibility", () => {
  test.use({ storageState: storageStateOf("trader") })

  test("axe finds no serious or critical violations on the form, its review, the list and a record", async ({ page }) => {
    await page.goto("/conversions/new")
    await expect(page.getByTestId("source-balance")).toContainText("Available:")
    await page.getByLabel(/^Amount/).fill("1.234")
    await page.getByRole("button", { name: "Add metadata" }).click()
    await expectNoSeriousA11yViolations(page)
    await page.getByLabel(/^Amount/).fill("10.00")
    await page.getByLabel("Key 1").fill("k")
    await page.getByRole("button", { name: "Review" }).click()
    await expect(page.getByRole("dialog")).toBeVisible()
    await expectNoSeriousA11yViolations(page)
    await page.getByRole("dialog").getByRole("button", { name: "Confirm conversion" }).click()
    await expect(page.getByTestId("conversion-record")).toBeVisible()
    const id = (await page.getByTestId("conversion-id").locator("code").textContent()) ?? ""

    await page.goto("/conversions")
    await expect(page.getByTestId("conversion-row").first()).toBeVisible()
    await expectNoSeriousA11yViolations(page)
    await page.goto(`/conversions/${id}`)
    await expect(page.getByTestId("conversion-record")).toBeVisible()
    await expectNoSeriousA11yViolations(page)
  })
})

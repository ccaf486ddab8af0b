import AxeBuilder from "@axe-core/playwright"
import { type APIRequestContext, type APIResponse, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import { emailOf, storageStateOf } from "./helpers"

// The support desk's one search: paste any id or ref_id in the header and land on what it
// is, with the record's whole story. Against the production build and the embedded sandbox.

function baseURL(): string {
  return `http://127.0.0.1:${process.env.E2E_PORT ?? "3100"}`
}

async function apiAs(role: "support" | "trader"): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL: baseURL(), storageState: storageStateOf(role), extraHTTPHeaders: { origin: baseURL() } })
}

async function treasuryId(api: APIRequestContext): Promise<string> {
  const { items } = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  return items.find((p) => p.nickname === "Treasury")!.id
}

async function execute(api: APIRequestContext, profileId: string, refId: string): Promise<{ id: string; quote_id: string }> {
  const quotes = (await (await api.get("/api/quotes?markets=ETHUSD")).json()) as { items: { id: string; side: string }[] }
  const quote = quotes.items.find((q) => q.side === "BUY")!
  const res = await api.post(`/api/profiles/${profileId}/quote-executions`, { data: { quote_id: quote.id, base_amount: "0.001", ref_id: refId } })
  expect(res.status(), await res.text()).toBe(200)
  return (await res.json()) as { id: string; quote_id: string }
}

function convert(api: APIRequestContext, profileId: string, refId: string, amount = "4.00"): Promise<APIResponse> {
  return api.post("/api/conversions", { data: { profile_id: profileId, amount, source_asset: "USD", target_asset: "USDP", ref_id: refId } })
}

async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([])
}

/** `/` focuses the header's search once the page is live (pressed again until it is). */
async function focusSearch(page: Page, key = "/") {
  const input = page.getByRole("combobox", { name: "Search any id, ref_id or quote id" })
  await expect(async () => {
    await page.locator("main").click({ position: { x: 1, y: 1 } })
    await page.keyboard.press(key)
    await expect(input).toBeFocused({ timeout: 500 })
  }).toPass({ timeout: 15_000 })
  return input
}

test.describe("support", () => {
  test.use({ storageState: storageStateOf("support") })

  test("pastes an execution's ref_id and lands on it, with who placed it and a timeline", async ({ page }) => {
    const trader = await apiAs("trader")
    const profileId = await treasuryId(trader)
    const refId = crypto.randomUUID()
    const execution = await execute(trader, profileId, refId)

    await page.goto("/")
    const input = await focusSearch(page)
    await input.fill(` ${refId} `)
    await input.press("Enter")
    await expect(page).toHaveURL(new RegExp(`/executions/${profileId}/${execution.id}$`))
    await expect(page.getByTestId("record-id")).toHaveText(execution.id)
    await expect(page.getByRole("heading", { level: 1, name: "Execution" })).toBeFocused()
    const story = page.getByTestId("record-story")
    await expect(story.getByTestId("timeline")).toContainText("Execution asked for in the console")
    await expect(story.getByTestId("timeline")).toContainText(emailOf("trader"))
    await expect(story.getByTestId("timeline")).toContainText("Sent to the service: accepted (1 attempt)")
    await story.getByText("The request as sent").click()
    await expect(story.getByTestId("request-as-sent")).toContainText(refId)
    await expect(page.getByTestId("quote-link")).toHaveAttribute("href", `/search?q=${execution.quote_id}`)
    await expectNoSeriousA11yViolations(page)
  })

  test("pastes a conversion id (Ctrl-K) and lands on it", async ({ page }) => {
    const trader = await apiAs("trader")
    const profileId = await treasuryId(trader)
    const created = await convert(trader, profileId, crypto.randomUUID())
    expect(created.status()).toBe(200)
    const conversion = (await created.json()) as { id: string }

    await page.goto("/executions")
    const input = await focusSearch(page, "Control+k")
    await input.fill(conversion.id)
    await input.press("Enter")
    await expect(page).toHaveURL(new RegExp(`/conversions/${conversion.id}$`))
    await expect(page.getByTestId("record-story").getByTestId("timeline")).toContainText("Conversion asked for in the console")
    await expect(page.getByTestId("story-intent-id")).toHaveText(/^[0-9a-f-]{36}$/)
    await expectNoSeriousA11yViolations(page)
  })

  test("a made-up id says nothing was found, and where it looked; the results page says the same", async ({ page }) => {
    const madeUp = `no-such-${crypto.randomUUID()}`
    await page.goto("/")
    const input = await focusSearch(page)
    await input.fill(madeUp)
    await input.press("Enter")
    const none = page.getByTestId("search-popup").getByTestId("search-none")
    await expect(none).toContainText(`Nothing found for ${madeUp}. Searched`)
    await expect(none).toContainText("the console's intent log")
    await expect(none).toContainText("the service's conversions")
    await expect(input).toBeFocused()
    await input.press("Escape")
    await expect(page.getByTestId("search-popup")).toBeHidden()
    await expect(input).toBeFocused()

    await page.goto(`/search?q=${encodeURIComponent(madeUp)}`)
    await expect(page.getByRole("heading", { name: /0 matches for/ })).toBeVisible()
    await expect(page.getByTestId("search-none")).toBeVisible()
    await expect(page.getByRole("list", { name: "Where the search looked" })).toContainText("the service's executions")
    await expectNoSeriousA11yViolations(page)
  })

  test("one ref_id naming an execution and a conversion shows a short list: arrows and Enter open one", async ({ page }) => {
    const trader = await apiAs("trader")
    const profileId = await treasuryId(trader)
    const refId = crypto.randomUUID()
    const execution = await execute(trader, profileId, refId)
    expect((await convert(trader, profileId, refId)).status()).toBe(200)

    await page.goto("/")
    const input = await focusSearch(page)
    await input.fill(refId)
    await input.press("Enter")
    const list = page.getByRole("listbox", { name: `Matches for ${refId}` })
    await expect(list.getByRole("option")).toHaveCount(2)
    await expect(list.getByRole("option").first()).toHaveAttribute("aria-selected", "true")
    const target = list.getByRole("option").filter({ hasText: "Execution" })
    // Move down until the execution is the active option, then open it.
    for (let i = 0; i < 2 && (await target.getAttribute("aria-selected")) !== "true"; i++) await input.press("ArrowDown")
    await expect(target).toHaveAttribute("aria-selected", "true")
    await input.press("Enter")
    await expect(page).toHaveURL(new RegExp(`/executions/${profileId}/${execution.id}$`))

    await page.goto(`/search?q=${refId}`)
    await expect(page.getByTestId("search-row")).toHaveCount(2)
    // Each match's id is a one-line chip: 8 characters shown, the whole id named and copied.
    const executionRow = page.getByTestId("search-row").filter({ has: page.getByRole("link", { name: "Execution", exact: true }) })
    const chip = executionRow.getByTestId("search-row-id")
    await expect(chip).toHaveText(`${execution.id.slice(0, 8)}…`)
    await expect(chip).toHaveAttribute("title", execution.id)
    await expect(executionRow.getByRole("button", { name: "Copy execution id" })).toBeVisible()
    await expectNoSeriousA11yViolations(page)
  })

  test("a request waiting for approval has no record: the search opens its intent page", async ({ page }) => {
    const trader = await apiAs("trader")
    const profileId = await treasuryId(trader)
    const refId = crypto.randomUUID()
    const held = await convert(trader, profileId, refId, "20000.00")
    expect(held.status()).toBe(202)
    const request = (await held.json()) as { id: string }
    try {
      await page.goto("/")
      const input = await focusSearch(page)
      await input.fill(refId)
      await input.press("Enter")
      await expect(page).toHaveURL(new RegExp(`/intents/${request.id}$`))
      await expect(page.getByTestId("intent-ref-id")).toHaveText(refId)
      await expect(page.getByTestId("no-record")).toContainText("waiting for approval")
      await expect(page.getByTestId("timeline")).toContainText("held for approval")
      await expectNoSeriousA11yViolations(page)
    } finally {
      await trader.post(`/api/approvals/${request.id}/withdraw`, { data: {} })
    }
  })

  test("/ typed into a field stays in the field", async ({ page }) => {
    await page.goto("/conversions")
    const field = page.getByRole("main").getByRole("textbox").first()
    await field.click()
    await page.keyboard.type("a/b")
    await expect(field).toHaveValue("a/b")
    await expect(page.getByRole("combobox", { name: "Search any id, ref_id or quote id" })).not.toBeFocused()
  })
})

test.describe("viewer", () => {
  test.use({ storageState: storageStateOf("viewer") })

  test("has no search box, and the search API refuses them", async ({ page }) => {
    await page.goto("/")
    await expect(page.getByTestId("staff-role")).toHaveText("viewer")
    await expect(page.getByRole("search")).toHaveCount(0)
    expect((await page.request.get("/api/search?q=abc")).status()).toBe(403)
  })
})

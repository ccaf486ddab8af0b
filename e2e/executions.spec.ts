import { readFileSync } from "node:fs"
import AxeBuilder from "@axe-core/playwright"
import { type APIRequestContext, type Page, type TestInfo, expect, test } from "@playwright/test"
import { storageStateOf } from "./helpers"
import { csvAmount, csvPrice } from "@/lib/format"
import { parseCsv } from "@/test/csv"

// The executions history against the embedded sandbox: rows placed through the real
// API, then the page's filters, paging and CSV export compared with the API's own
// filtered list.

interface Execution {
  id: string
  ref_id?: string
  status: string
  side: string
  market: string
  price: string
  base_amount: string
  base_asset: string
  quote_amount: string
  quote_asset: string
  created_at: string
}

const PROFILE = "Client omnibus"

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function profileId(request: APIRequestContext): Promise<string> {
  const { items } = (await (await request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const found = items.find((p) => p.nickname === PROFILE)
  if (!found) throw new Error(`no profile ${PROFILE}`)
  return found.id
}

/** Every execution the API's filters select, all pages, newest first. */
async function listAll(request: APIRequestContext, id: string, query: string): Promise<Execution[]> {
  const rows: Execution[] = []
  let cursor: string | undefined
  do {
    const url = `/api/profiles/${id}/quote-executions?limit=7${query ? `&${query}` : ""}${cursor ? `&page_cursor=${encodeURIComponent(cursor)}` : ""}`
    const res = await request.get(url)
    expect(res.ok(), url).toBe(true)
    const page = (await res.json()) as { items: Execution[]; next_page_cursor?: string }
    rows.push(...page.items)
    cursor = page.next_page_cursor || undefined
  } while (cursor)
  return rows
}

async function execute(request: APIRequestContext, id: string, market: string, side: "BUY" | "SELL", base: string): Promise<Execution> {
  const quotes = (await (await request.get(`/api/quotes?markets=${market}`)).json()) as { items: { id: string; side: string }[] }
  const quote = quotes.items.find((q) => q.side === side)!
  const res = await request.post(`/api/profiles/${id}/quote-executions`, {
    headers: { origin: origin() },
    data: { quote_id: quote.id, base_amount: base, ref_id: crypto.randomUUID(), metadata: { batch: "history-e2e" } },
  })
  expect(res.ok(), await res.text()).toBe(true)
  return (await res.json()) as Execution
}

async function shownIds(page: Page): Promise<string[]> {
  return page.getByTestId("execution-row").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-id") ?? ""))
}

/** Clicks "Load more" until every page is shown. */
async function loadAll(page: Page): Promise<void> {
  const more = page.getByTestId("load-more")
  for (let i = 0; i < 50 && (await more.count()) > 0; i++) {
    const before = await page.getByTestId("execution-row").count()
    await more.click()
    await expect.poll(() => page.getByTestId("execution-row").count()).toBeGreaterThan(before)
  }
}

/** The page's current filters, as its URL carries them (the service's names). */
function filterQuery(page: Page): string {
  const url = new URL(page.url())
  return url.searchParams.toString()
}

async function snap(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await testInfo.attach(name, { body: await page.screenshot({ fullPage: true }), contentType: "image/png" })
}

test.describe.configure({ mode: "serial" })

test.describe("executions history", () => {
  // A browser far from UTC: the table and the created from/to filters are UTC all the same.
  test.use({ storageState: storageStateOf("trader"), timezoneId: "America/Los_Angeles" })

  let id: string
  let windowStart: Date
  let windowEnd: Date
  let inWindow: Execution[]

  test.beforeAll(async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageStateOf("trader") })
    const request = context.request
    id = await profileId(request)
    // Enough rows for more than one page (25 a page), across markets and sides.
    const existing = (await listAll(request, id, "")).length
    for (let i = existing; i < 28; i++) await execute(request, id, i % 2 === 0 ? "BTCUSD" : "ETHUSD", i % 3 === 0 ? "SELL" : "BUY", "0.001")
    // A window that holds exactly the next three, on whole seconds.
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() % 1000)))
    windowStart = new Date(Math.floor(Date.now() / 1000) * 1000)
    inWindow = [
      await execute(request, id, "LTCUSD", "BUY", "0.1"),
      await execute(request, id, "LTCUSD", "SELL", "0.1"),
      await execute(request, id, "BTCUSD", "SELL", "0.002"),
    ]
    windowEnd = new Date(Date.now())
    await new Promise((r) => setTimeout(r, 2100))
    await context.close()
  })

  async function openHistory(page: Page, query = ""): Promise<void> {
    await page.goto(`/executions${query}`)
    await page.getByLabel("Profile", { exact: true }).selectOption({ label: PROFILE })
    await expect(page.getByTestId("executions-table")).toBeVisible()
  }

  test("pages through every execution with Load more, in the API's order", async ({ page }, testInfo) => {
    await openHistory(page)
    await expect(page.getByTestId("execution-row")).toHaveCount(25)
    await expect(page.getByTestId("executions-count")).toContainText("25 of")
    await snap(page, testInfo, "history first page")
    await loadAll(page)
    const all = await listAll(page.request, id, "")
    expect(all.length).toBeGreaterThan(25)
    expect(await shownIds(page)).toEqual(all.map((e) => e.id))
    await expect(page.getByTestId("load-more")).toHaveCount(0)
    const results = await new AxeBuilder({ page }).analyze()
    const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([])
  })

  test("market, side and status filters select what the API selects", async ({ page }, testInfo) => {
    await openHistory(page)
    await page.getByLabel("Market", { exact: true }).selectOption("BTCUSD")
    await page.getByLabel("Side", { exact: true }).selectOption("SELL")
    await page.getByLabel("Status", { exact: true }).selectOption("SETTLED")
    await page.getByRole("button", { name: "Apply" }).click()
    await expect(page).toHaveURL(/market=BTCUSD/)
    await expect(page).toHaveURL(/side=SELL/)
    await expect(page).toHaveURL(/status=SETTLED/)
    await loadAll(page)
    const expected = await listAll(page.request, id, "market=BTCUSD&side=SELL&status=SETTLED")
    expect(expected.length).toBeGreaterThan(0)
    await expect.poll(() => shownIds(page)).toEqual(expected.map((e) => e.id))
    for (const row of await page.getByTestId("execution-row").all()) {
      await expect(row).toContainText("BTCUSD")
      await expect(row).toContainText("SELL")
      await expect(row.getByTestId("status")).toHaveText("SETTLED")
    }
    await snap(page, testInfo, "history filtered")

    // The filters survive a reload (they live in the URL).
    await page.reload()
    await expect(page.getByLabel("Market", { exact: true })).toHaveValue("BTCUSD")
    await expect(page.getByTestId("executions-table")).toBeVisible()
  })

  test("created from/to select the window, and the CSV export has exactly those rows", async ({ page }, testInfo) => {
    await openHistory(page)
    const utc = (d: Date) => d.toISOString().slice(0, 19)
    await page.getByLabel("Created from (UTC)").fill(utc(windowStart))
    await page.getByLabel("Created to (UTC)").fill(utc(windowEnd))
    await page.getByRole("button", { name: "Apply" }).click()
    await expect(page).toHaveURL(/created_at\.begin=/)
    await expect(page.getByTestId("execution-row")).toHaveCount(3)
    expect(new Set(await shownIds(page))).toEqual(new Set(inWindow.map((e) => e.id)))
    const expected = await listAll(page.request, id, filterQuery(page))
    expect(await shownIds(page)).toEqual(expected.map((e) => e.id))
    await snap(page, testInfo, "history by creation time")

    const download = page.waitForEvent("download")
    await page.getByTestId("export-csv").click()
    const file = await download
    expect(file.suggestedFilename()).toMatch(/^quote-executions-.+\.csv$/)
    const csv = parseCsv(readFileSync(await file.path(), "utf8"))
    const [header, ...rows] = csv
    expect(header?.slice(0, 11)).toEqual(["id", "created_at", "settled_at", "status", "market", "side", "price", "base_amount", "base_asset", "quote_amount", "quote_asset"])
    expect(rows.map((r) => r[0])).toEqual(expected.map((e) => e.id))
    for (const [i, row] of rows.entries()) {
      const e = expected[i]!
      // The CSV writes each number plainly at its asset's decimals (a price with at least
      // two): "94619.30", never the service's "94619.3".
      expect(row.slice(4, 8)).toEqual([e.market, e.side, csvPrice(e.price), csvAmount(e.base_amount, e.base_asset)])
      expect(row[9]).toBe(csvAmount(e.quote_amount, e.quote_asset))
      expect(row[header!.indexOf("metadata")]).toBe('{"batch":"history-e2e"}')
      // Placed through the console by the trader, with no approval needed.
      expect(row[header!.indexOf("placed_by")]).toBe("trader@example.com")
      expect(row[header!.indexOf("approved_by")]).toBe("")
    }
    expect(header?.slice(-2)).toEqual(["placed_by", "approved_by"])
  })

  test("the CSV export of every row walks all pages and matches the filtered list", async ({ page }) => {
    await openHistory(page, "?side=BUY")
    await expect(page.getByLabel("Side", { exact: true })).toHaveValue("BUY")
    const href = await page.getByTestId("export-csv").getAttribute("href")
    expect(href).toContain("side=BUY")
    const res = await page.request.get(href!)
    expect(res.status()).toBe(200)
    expect(res.headers()["content-type"]).toContain("text/csv")
    const [, ...rows] = parseCsv(await res.text())
    const expected = await listAll(page.request, id, "side=BUY")
    expect(rows.map((r) => r[0])).toEqual(expected.map((e) => e.id))
    expect(rows.every((r) => r[5] === "BUY")).toBe(true)
  })

  test("a row links to its detail page, with the same record card and copy buttons", async ({ page, context }, testInfo) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"])
    const target = inWindow[2]!
    await openHistory(page)
    await page.getByRole("link", { name: `Execution ${target.id}` }).click()
    await expect(page).toHaveURL(new RegExp(`/executions/${id}/${target.id}$`))
    await expect(page.getByTestId("record-id")).toHaveText(target.id)
    await expect(page.getByTestId("status")).toHaveText("SETTLED")
    await expect(page.getByTestId("record-settled-at")).toBeVisible()
    await expect(page.getByTestId("record-metadata")).toContainText("batch: history-e2e")
    await page.getByRole("button", { name: "Copy execution id" }).click()
    await expect(page.getByRole("button", { name: "Copied execution id" })).toContainText("Copied")
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(target.id)
    await snap(page, testInfo, "execution detail")
    const results = await new AxeBuilder({ page }).analyze()
    expect(results.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([])
  })

  test("a viewer sees the history without an export, and the export API says 403", async ({ browser }) => {
    const context = await browser.newContext({ storageState: storageStateOf("viewer"), timezoneId: "UTC" })
    const page = await context.newPage()
    await openHistory(page)
    await expect(page.getByTestId("export-csv")).toHaveCount(0)
    const res = await page.request.get(`/api/profiles/${id}/quote-executions/export`)
    expect(res.status()).toBe(403)
    await context.close()
  })
})

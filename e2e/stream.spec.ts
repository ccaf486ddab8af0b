import { type Page, expect, test } from "@playwright/test"
import { openDesk, review, startTrade } from "./desk"
import { DEMO_PASSWORD, emailOf, signIn, storageStateOf } from "./helpers"

// GET /api/stream (issue 37): an open page is pushed what it used to poll for. Against the
// embedded sandbox; nothing is mocked.

const stream = (page: Page) => page.getByTestId("console-stream")

/** Counts the page's requests to a path from now on. */
function counter(page: Page, path: string): () => number {
  let n = 0
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === path) n++
  })
  return () => n
}

test.describe("trader", () => {
  test.use({ storageState: storageStateOf("trader") })

  test("the trade desk gets its quotes by push: the grid keeps moving with almost no /api/quotes requests", async ({ page }) => {
    const quotes = counter(page, "/api/quotes")
    await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
    await expect(stream(page)).toHaveAttribute("data-state", "live")
    const before = quotes()
    // The held quote's id changes with each of the service's quotes (every second).
    const buy = page.getByTestId("quote-BUY")
    const seenIds = new Set<string>()
    const started = Date.now()
    while (Date.now() - started < 8_000) {
      const id = await buy.getAttribute("data-quote-id").catch(() => null)
      if (id) seenIds.add(id)
      await page.waitForTimeout(500)
    }
    // Polling asked once a second (8 in 8 s); pushed, none while the stream is live.
    expect(quotes() - before).toBeLessThanOrEqual(1)
    await expect(page.getByTestId("quotes-stale")).toHaveCount(0)
    await expect(page.getByTestId("quotes-not-live")).toHaveCount(0)
    // …and the quotes on the page kept changing: they came by push.
    expect(seenIds.size).toBeGreaterThan(2)
  })

  test("a placement's SETTLED reaches the page by push", async ({ page }) => {
    await openDesk(page, { profile: "Treasury", market: "BTCUSD" })
    await expect(stream(page)).toHaveAttribute("data-state", "live")
    await startTrade(page, "BUY", "crypto", "0.001")
    const dialog = await review(page)
    await dialog.getByTestId("confirm-button").click()
    const result = page.getByTestId("result")
    const id = (await result.getByTestId("record-id").textContent())?.trim() ?? ""
    expect(id).not.toBe("")
    await expect(stream(page)).toHaveAttribute("data-last-record", `${id} SETTLED`, { timeout: 20_000 })
    await expect(result.getByTestId("status")).toHaveText("SETTLED")
  })
})

test("a session revoked while its stream is open: the stream closes within 30 s", async ({ browser }) => {
  test.setTimeout(90_000)
  // A sign-in of its own: the shared trader session stays for the other specs.
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto("/sign-in")
  await signIn(page, emailOf("trader"), DEMO_PASSWORD)
  await expect(page.getByTestId("staff-role")).toHaveText("trader")
  const streamDone = new Promise<number>((resolve) => {
    page.on("requestfinished", (request) => {
      if (new URL(request.url()).pathname === "/api/stream") resolve(Date.now())
    })
    page.on("requestfailed", (request) => {
      if (new URL(request.url()).pathname === "/api/stream") resolve(Date.now())
    })
  })
  await page.goto("/trade")
  await expect(stream(page)).toHaveAttribute("data-state", "live")

  const admin = await browser.newContext({ storageState: storageStateOf("admin") })
  const base = String(test.info().project.use.baseURL)
  const sessions = (await (await admin.request.get("/api/admin/sessions")).json()) as { items: { id: string; email: string; created_at: string }[] }
  const mine = sessions.items.filter((s) => s.email === emailOf("trader")).sort((a, b) => b.created_at.localeCompare(a.created_at))[0]
  expect(mine).toBeDefined()
  const revoked = Date.now()
  const res = await admin.request.delete(`/api/admin/sessions/${mine!.id}`, { headers: { origin: base } })
  expect(res.status()).toBe(204)

  const closedAt = await streamDone
  expect(closedAt - revoked).toBeLessThan(30_000)
  // Its reconnection is refused: the session is over on the stream as on every route.
  const again = await page.request.get("/api/stream")
  expect(again.status()).toBe(401)
  await admin.close()
  await context.close()
})

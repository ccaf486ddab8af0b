import { type APIRequestContext, type Page, type Request, request as playwrightRequest, expect, test } from "@playwright/test"
import canaries from "./canaries.json" with { type: "json" }
import { openDesk, review, startTrade } from "./desk"
import { DEMO_PASSWORD, emailOf, signIn, storageStateOf } from "./helpers"
import { adminApi, putPolicy } from "./policy"

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

test("a session revoked while its streams are open: the page's stream closes, and the server ends one nobody closes, within 30 s", async ({ browser }) => {
  // A sign-in of its own: the shared trader session stays for the other specs.
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto("/sign-in")
  await signIn(page, emailOf("trader"), DEMO_PASSWORD)
  await expect(page.getByTestId("staff-role")).toHaveText("trader")
  // The page's streams and when each ended. The page signed in on opens one too, and leaving
  // it ends that one: only the streams still open when the session is ended count.
  const streams = new Map<Request, number | null>()
  const isStream = (request: Request) => new URL(request.url()).pathname === "/api/stream"
  page.on("request", (request) => {
    if (isStream(request)) streams.set(request, null)
  })
  const ended = (request: Request) => {
    if (isStream(request)) streams.set(request, Date.now())
  }
  page.on("requestfinished", ended)
  page.on("requestfailed", ended)
  await page.goto("/trade")
  await expect(stream(page)).toHaveAttribute("data-state", "live")

  const admin = await browser.newContext({ storageState: storageStateOf("admin") })
  const base = String(test.info().project.use.baseURL)
  const sessions = (await (await admin.request.get("/api/admin/sessions")).json()) as { items: { id: string; email: string; created_at: string }[] }
  const mine = sessions.items.filter((s) => s.email === emailOf("trader")).sort((a, b) => b.created_at.localeCompare(a.created_at))[0]
  expect(mine).toBeDefined()
  const open = [...streams].filter(([, endedAt]) => endedAt === null).map(([request]) => request)
  expect(open).toHaveLength(1)
  // A second stream on the same session that no page will close (the page closes its own when
  // it learns the session is over): only the server's re-check of the session can end it.
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ")
  const unattended = await fetch(`${base}/api/stream?topics=inbox`, { headers: { cookie }, signal: AbortSignal.timeout(60_000) })
  expect(unattended.status).toBe(200)
  const unattendedBody = unattended.text()
  const revoked = Date.now()
  const res = await admin.request.delete(`/api/admin/sessions/${mine!.id}`, { headers: { origin: base } })
  expect(res.status()).toBe(204)

  await expect.poll(() => streams.get(open[0]!), { timeout: 30_000 }).not.toBeNull()
  expect(streams.get(open[0]!)! - revoked).toBeLessThan(30_000)
  const said = await unattendedBody
  expect(Date.now() - revoked).toBeLessThan(30_000)
  expect(said).toMatch(/event: end\ndata: \{"reason":"session_ended"\}/)
  // Its reconnection is refused: the session is over on the stream as on every route. (Asked
  // by fetch, which answers at the headers: a stream let through would never finish.)
  const again = await page.evaluate(async () => {
    const stop = new AbortController()
    const answer = await fetch("/api/stream", { signal: stop.signal })
    stop.abort()
    return answer.status
  })
  expect(again).toBe(401)
  await admin.close()
  await context.close()
})

// The topics (the inbox, the approvals count, the overview, notifications): pushed while the
// stream carries them, their polls off. An absence of polls can only be seen over a window:
// each window below is longer than the poll it watches for.

const CHECKER2 = { email: "checker2@example.com", password: "demo-password-checker2" }

/** The trader asks for a 12,000 USD conversion (over the default policy's threshold): a request waiting for checker2; its ref_id. */
async function askForApproval(baseURL: string): Promise<string> {
  const api: APIRequestContext = await playwrightRequest.newContext({ baseURL, storageState: storageStateOf("trader"), extraHTTPHeaders: { origin: baseURL } })
  try {
    const profiles = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
    const profile = profiles.items.find((p) => p.nickname === "Treasury") ?? profiles.items[0]
    const refId = crypto.randomUUID()
    const res = await api.post("/api/conversions", {
      data: { profile_id: profile!.id, amount: "12000.00", source_asset: "USD", target_asset: "USDP", ref_id: refId },
    })
    expect(res.status(), await res.text()).toBe(202)
    return refId
  } finally {
    await api.dispose()
  }
}

test("a new request reaches the bell and the approvals badge by push: no inbox or approvals poll meanwhile", async ({ browser, baseURL }) => {
  const admin = await adminApi(baseURL!)
  const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
  await putPolicy(admin, DEFAULT_POLICY)
  await admin.dispose()
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto("/sign-in")
  await signIn(page, CHECKER2.email, CHECKER2.password)
  await expect(page.getByTestId("staff-email")).toHaveText(CHECKER2.email)
  const cleared = await page.request.post("/api/notifications/inbox/read", { data: {}, headers: { origin: baseURL! } })
  expect(cleared.status()).toBe(200)
  await page.goto("/executions")
  await expect(stream(page)).toHaveAttribute("data-state", "live")
  await expect(stream(page)).toHaveAttribute("data-topics", "approvals,inbox,notifications")
  const bell = page.getByTestId("inbox-bell")
  await expect(bell.getByTestId("inbox-count")).toHaveCount(0)
  const badge = page.getByTestId("approvals-badge")
  const waiting = async () => ((await badge.count()) === 0 ? 0 : Number(/(\d+)$/.exec((await badge.textContent()) ?? "")?.[1] ?? "0"))
  const before = await waiting()

  const inboxPolls = counter(page, "/api/notifications/inbox")
  const approvalPolls = counter(page, "/api/approvals")
  const started = Date.now()
  await askForApproval(baseURL!)
  await expect(bell.getByTestId("inbox-count")).toHaveText("1")
  await expect.poll(waiting).toBe(before + 1)
  // Polled, the inbox was asked every 4 s and the count every 5 s: watch past both.
  await page.waitForTimeout(Math.max(0, 6_000 - (Date.now() - started)))
  expect(inboxPolls()).toBe(0)
  expect(approvalPolls()).toBe(0)
  await context.close()
})

test.describe("the /approvals list", () => {
  test.use({ storageState: storageStateOf("admin") })
  test.beforeEach(async ({ baseURL }) => {
    const admin = await adminApi(baseURL!)
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    await putPolicy(admin, DEFAULT_POLICY)
    await admin.dispose()
  })
  const request = (page: Page, refId: string) => page.locator(`[data-testid=approval-item][data-ref-id="${refId}"]`)

  test("a request another person makes appears on an open /approvals page by push: no GET /api/approvals meanwhile", async ({ page, baseURL }) => {
    await page.goto("/approvals")
    await expect(stream(page)).toHaveAttribute("data-state", "live")
    await expect(stream(page)).toHaveAttribute("data-topics", /(^|,)approval_list(,|$)/)
    await expect(page.getByText(/^\d+ pending$/)).toBeVisible()
    // Every GET /api/approvals from now on: the page's list (?limit=100) and the header's count.
    const lists = counter(page, "/api/approvals")
    const started = Date.now()
    const refId = await askForApproval(baseURL!)
    await expect(request(page, refId)).toHaveAttribute("data-state", "PENDING")
    // Polled, the list was asked every 2 s (and the count every 5 s): watch past both.
    await page.waitForTimeout(Math.max(0, 6_000 - (Date.now() - started)))
    expect(lists()).toBe(0)
  })

  test("with no stream the list polls every 2 s, and a new request still shows", async ({ page, baseURL }) => {
    await page.route("**/api/stream**", (route) => route.abort())
    await page.goto("/approvals")
    await expect(page.getByText(/^\d+ pending$/)).toBeVisible()
    await expect(stream(page)).not.toHaveAttribute("data-state", "live")
    const lists = counter(page, "/api/approvals")
    const refId = await askForApproval(baseURL!)
    await expect(request(page, refId)).toHaveAttribute("data-state", "PENDING")
    await page.waitForTimeout(5_000)
    // At least two of the list's polls in 5 s (the header's count adds one every 5 s).
    expect(lists()).toBeGreaterThanOrEqual(2)
  })
})

test.describe("admin", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("a wire deposit made at the sandbox directly reaches the overview's live feed by push: no overview poll meanwhile", async ({ page, baseURL }) => {
    const { items: profiles } = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
    const treasury = profiles.find((p) => p.nickname === "Treasury") ?? profiles[0]!
    const cents = String(Math.floor(Math.random() * 900_000) + 100_000)
    const amount = `${cents.slice(0, -2)}.${cents.slice(-2)}`
    const shown = `${Number(cents.slice(0, -2)).toLocaleString("en-US")}.${cents.slice(-2)} USD`
    await page.goto("/")
    await expect(page.getByTestId("feed")).toBeVisible()
    await expect(stream(page)).toHaveAttribute("data-state", "live")
    await expect(stream(page)).toHaveAttribute("data-topics", /(^|,)overview(,|$)/)
    const overviewPolls = counter(page, "/api/overview")
    const started = Date.now()

    const api = await playwrightRequest.newContext({ baseURL })
    try {
      const token = await api.post("/sandbox/oauth2/token", {
        form: { grant_type: "client_credentials", client_id: canaries.SANDBOX_CLIENT_ID, client_secret: canaries.SANDBOX_CLIENT_SECRET, scope: "transfer:write_sandbox_fiat_deposit" },
      })
      expect(token.status()).toBe(200)
      const { access_token: accessToken } = (await token.json()) as { access_token: string }
      const deposited = await api.post("/sandbox/v2/sandbox/fiat-deposits", {
        headers: { authorization: `Bearer ${accessToken}` },
        data: {
          amount,
          asset: "USD",
          memo_id: treasury.id,
          fiat_network_instructions: {
            wire: {
              account_number: "000123456789",
              fiat_account_owner_address: { country: "US" },
              routing_details: { routing_number_type: "ABA", routing_number: "021000021", bank_name: "E2E Bank", bank_address: { country: "US" } },
            },
          },
        },
      })
      expect(deposited.status(), await deposited.text()).toBe(200)
    } finally {
      await api.dispose()
    }
    // The event reader reads every 5 s (no webhook in e2e); the feed is pushed once it has.
    await expect(page.getByTestId("feed-item").filter({ hasText: `Wire deposit of ${shown}` })).toHaveCount(1, { timeout: 15_000 })
    // Polled, the overview was asked every 3 s: watch past that.
    await page.waitForTimeout(Math.max(0, 4_000 - (Date.now() - started)))
    expect(overviewPolls()).toBe(0)
  })
})

import { type APIRequestContext, type Browser, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import Decimal from "decimal.js"
import canaries from "./canaries.json" with { type: "json" }
import { type Role, setSettleDelay } from "./helpers"
import { ServerSessions } from "./server-sessions"

// The conversions desk through the service's Orchestrations API: a server started with
// UPSTREAM_CONVERSIONS_API=orchestrations (playwright.config.ts), the embedded sandbox
// behind it. Create, follow PROCESSING → COMPLETED live, a FAILED one with its reason,
// no cancel, look-up by ref_id, export; approval at the service (PENDING, then approved or
// REJECTED) through the sandbox admin's approve and reject, standing in for the service's dashboard.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

interface Conversion {
  id: string
  status: string
  ref_id?: string
  amount?: string
  fail_reason?: { detail?: string }
}

let origin = ""
let sessions: ServerSessions

async function pageAs(browser: Browser, role: Role): Promise<Page> {
  return sessions.page(browser, role)
}

async function apiAs(browser: Browser, role: Role): Promise<APIRequestContext> {
  return sessions.api(browser, role)
}

async function profileId(api: APIRequestContext, nickname: string): Promise<string> {
  const { items } = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const found = items.find((p) => p.nickname === nickname)
  if (!found) throw new Error(`no profile ${nickname}`)
  return found.id
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/${new URL(origin).port}/screens/orchestrations-${name}.png`, fullPage: true })
}

test.beforeAll(({ baseURL }) => {
  origin = baseURL ?? ""
  sessions = new ServerSessions(origin)
})

test("a trader mints USD → USDG through Orchestrations and watches PROCESSING turn COMPLETED; no Cancel is offered", async ({ browser }) => {
  const page = await pageAs(browser, "trader")
  await page.goto("/conversions/new")
  await expect(page.getByTestId("env-conversions-api")).toHaveText("Orchestrations")
  await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Treasury" })
  await page.getByLabel("From (source asset)").selectOption("USD")
  await page.getByLabel("To (target asset)").selectOption("USDG")
  await page.getByLabel(/^Amount/).fill("150.25")
  await page.getByRole("button", { name: "Review" }).click()
  const dialog = page.getByRole("dialog", { name: "Confirm the conversion" })
  const refId = (await dialog.getByTestId("review-ref-id").textContent()) ?? ""
  expect(refId).toMatch(UUID)
  let posts = 0
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/conversions") posts++
  })
  // Held PROCESSING while the page is looked at (a busy machine can take longer than the
  // usual settle delay to get there), then let go.
  const admin = await apiAs(browser, "admin")
  const usual = await setSettleDelay(admin, 120_000)
  const record = page.getByTestId("conversion-record")
  try {
    await dialog.getByRole("button", { name: "Confirm conversion" }).dblclick()
    await expect(record.getByTestId("conversion-ref-id")).toContainText(refId)
    await expect(record.getByTestId("status")).toHaveText("PROCESSING")
    await expect(record.getByTestId("timeline-processing")).toContainText("cannot be cancelled")
    await expect(page.getByRole("button", { name: /^Cancel/ })).toHaveCount(0)
    await shot(page, "processing")
  } finally {
    await setSettleDelay(admin, usual)
  }
  await expect(record.getByTestId("status")).toHaveText("COMPLETED", { timeout: 15_000 })
  await expect(record.getByTestId("timeline-completed")).toBeVisible()
  await shot(page, "completed")
  expect(posts).toBe(1)

  // The record page after a reload: still no cancel, the service's status as it is.
  const id = (await record.getByTestId("conversion-id").textContent())?.match(UUID)?.[0] ?? ""
  await page.goto(`/conversions/${id}`)
  await expect(page.getByTestId("status")).toHaveText("COMPLETED")
  await expect(page.getByRole("button", { name: /^Cancel/ })).toHaveCount(0)
  await page.context().close()
})

test("a failed orchestration shows FAILED with the service's reason, and its source is refunded", async ({ browser }) => {
  const admin = await apiAs(browser, "admin")
  const trader = await apiAs(browser, "trader")
  const profile = await profileId(trader, "Treasury")
  const usdBefore = async () =>
    ((await (await trader.get(`/api/profiles/${profile}/balances`)).json()) as { items: { asset: string; available: string }[] }).items.find(
      (b) => b.asset === "USD",
    )?.available
  const before = await usdBefore()
  expect(
    (await admin.put("/api/sandbox/settings", { data: { rules: [{ operation: "create_orchestration", fault: "fail_processing", rate: 1 }] } })).status(),
  ).toBe(200)
  try {
    const res = await trader.post("/api/conversions", {
      data: { profile_id: profile, amount: "20.00", source_asset: "USD", target_asset: "PYUSD", ref_id: crypto.randomUUID() },
    })
    expect(res.status(), await res.text()).toBe(200)
    const created = (await res.json()) as Conversion
    expect(created.status).toBe("PROCESSING")
    const page = await pageAs(browser, "support")
    await page.goto(`/conversions/${created.id}`)
    await expect(page.getByTestId("status")).toHaveText("FAILED", { timeout: 15_000 })
    await expect(page.getByTestId("conversion-fail-reason")).toContainText("injected fault: the destination transfer failed")
    await shot(page, "failed")
    await page.context().close()
    await expect.poll(usdBefore).toBe(before)
  } finally {
    await admin.put("/api/sandbox/settings", { data: { rules: [] } })
    await admin.dispose()
    await trader.dispose()
  }
})

test("support finds an orchestration by ref_id, and the CSV export holds the filtered rows with their status", async ({ browser }) => {
  const trader = await apiAs(browser, "trader")
  const profile = await profileId(trader, "Client omnibus")
  const placed: Conversion[] = []
  for (let i = 0; i < 3; i++) {
    const res = await trader.post("/api/conversions", {
      data: { profile_id: profile, amount: `${i + 1}.50`, source_asset: "USD", target_asset: "USDP", ref_id: crypto.randomUUID() },
    })
    expect(res.status(), await res.text()).toBe(200)
    placed.push((await res.json()) as Conversion)
  }
  await trader.dispose()

  const page = await pageAs(browser, "support")
  await page.goto("/conversions")
  await page.getByLabel("Conversion id or ref_id").fill(placed[1]!.ref_id ?? "")
  await page.getByRole("button", { name: "Find" }).click()
  await expect(page).toHaveURL(`/conversions/${placed[1]!.id}`)
  await expect(page.getByTestId("conversion-amount")).toHaveText(/2\.50\s*USD/)
  await expect(page.getByTestId("status")).toHaveText(/PROCESSING|COMPLETED/)

  const today = new Date().toISOString().slice(0, 10)
  await page.goto("/conversions")
  await page.getByLabel("Profile", { exact: true }).selectOption({ label: "Client omnibus" })
  await page.getByLabel("Created from (UTC)").fill(today)
  await page.getByRole("button", { name: "Apply filters" }).click()
  const rows = page.getByTestId("conversion-row")
  await expect(rows).toHaveCount(3)
  const ids = await rows.evaluateAll((els) => els.map((el) => el.getAttribute("data-id") ?? ""))
  expect([...ids].sort()).toEqual(placed.map((c) => c.id).sort())

  const csv = await page.request.get((await page.getByTestId("export-csv").getAttribute("href")) ?? "")
  expect(csv.status()).toBe(200)
  const lines = (await csv.text()).trim().split("\r\n")
  const header = lines[0]?.split(",") ?? []
  expect(header.slice(-3)).toEqual(["fail_reason", "placed_by", "approved_by"])
  const csvRows = lines.slice(1).map((line) => line.split(","))
  expect(csvRows.map((r) => r[0])).toEqual(ids)
  for (const row of csvRows) expect(row[2]).toMatch(/^(PROCESSING|COMPLETED)$/)
  await shot(page, "table")
  await page.context().close()
})

test("an admin switches the desk's API on the sandbox tools page; the banner follows", async ({ browser }) => {
  const page = await pageAs(browser, "admin")
  await page.goto("/sandbox")
  const form = page.getByRole("form", { name: "Conversion API" })
  await expect(page.getByTestId("env-conversions-api")).toHaveText("Orchestrations")
  await form.getByLabel(/Stablecoin conversions/).check()
  await form.getByRole("button", { name: "Switch" }).click()
  await expect(page.getByTestId("conversions-api-in-use")).toContainText("Stablecoin conversions")
  await expect(page.getByTestId("env-conversions-api")).toHaveText("Stablecoin conversions")
  await shot(page, "switched")
  await form.getByLabel(/Orchestrations/).check()
  await form.getByRole("button", { name: "Switch" }).click()
  await expect(page.getByTestId("env-conversions-api")).toHaveText("Orchestrations")
  await page.context().close()
})

/** POST /sandbox/admin/orchestrations/{id}/approve|reject with the e2e server's sandbox client: the service's dashboard deciding. */
async function decideAtTheService(id: string, decision: "approve" | "reject"): Promise<void> {
  const api = await playwrightRequest.newContext({ baseURL: origin })
  try {
    const token = await api.post("/sandbox/oauth2/token", {
      form: { grant_type: "client_credentials", client_id: canaries.SANDBOX_CLIENT_ID, client_secret: canaries.SANDBOX_CLIENT_SECRET, scope: "sandbox:admin" },
    })
    expect(token.status(), await token.text()).toBe(200)
    const { access_token: accessToken } = (await token.json()) as { access_token: string }
    const decided = await api.post(`/sandbox/admin/orchestrations/${id}/${decision}`, { headers: { authorization: `Bearer ${accessToken}` }, data: {} })
    expect(decided.status(), await decided.text()).toBe(200)
  } finally {
    await api.dispose()
  }
}

test("approval at the service: PENDING shows as waiting there; approved, it goes PROCESSING → COMPLETED; rejected, it is final and nothing moved", async ({ browser }) => {
  const admin = await apiAs(browser, "admin")
  const trader = await apiAs(browser, "trader")
  const profile = await profileId(trader, "Treasury")
  const available = async (asset: string) =>
    ((await (await trader.get(`/api/profiles/${profile}/balances`)).json()) as { items: { asset: string; available: string }[] }).items.find(
      (b) => b.asset === asset,
    )?.available ?? "0"
  expect((await admin.put("/api/sandbox/settings", { data: { orchestration_approval: true } })).status()).toBe(200)
  const page = await pageAs(browser, "support")
  try {
    const usdBefore = await available("USD")
    const usdgBefore = await available("USDG")
    const place = async (amount: string) => {
      const res = await trader.post("/api/conversions", {
        data: { profile_id: profile, amount, source_asset: "USD", target_asset: "USDG", ref_id: crypto.randomUUID() },
      })
      expect(res.status(), await res.text()).toBe(200)
      return (await res.json()) as Conversion
    }
    const approved = await place("31.00")
    const rejected = await place("42.00")
    expect([approved.status, rejected.status]).toEqual(["PENDING", "PENDING"])
    // Waiting at the service: nothing has moved yet.
    expect(await available("USD")).toBe(usdBefore)

    await page.goto(`/conversions/${approved.id}`)
    await expect(page.getByTestId("status")).toHaveText("PENDING")
    await expect(page.getByTestId("status-note")).toHaveText(/waiting for approval at the service/)
    await shot(page, "pending-at-the-service")
    await decideAtTheService(approved.id, "approve")
    await expect(page.getByTestId("status")).toHaveText(/PROCESSING|COMPLETED/, { timeout: 15_000 })
    await expect(page.getByTestId("status")).toHaveText("COMPLETED", { timeout: 20_000 })
    await expect(page.getByTestId("status-note")).toHaveCount(0)

    await page.goto(`/conversions/${rejected.id}`)
    await expect(page.getByTestId("status")).toHaveText("PENDING")
    await decideAtTheService(rejected.id, "reject")
    await expect(page.getByTestId("status")).toHaveText("REJECTED", { timeout: 15_000 })
    await expect(page.getByTestId("status-note")).toHaveText(/rejected at the service, nothing moved/)
    await shot(page, "rejected-at-the-service")
    await expect(page.getByRole("button", { name: /^Cancel/ })).toHaveCount(0)

    // Only the approved one moved money: USD down by its 31.00, USDG up by as much; the rejected 42.00 nowhere.
    await expect.poll(async () => new Decimal(await available("USD")).minus(usdBefore).toFixed(2)).toBe("-31.00")
    expect(new Decimal(await available("USDG")).minus(usdgBefore).toFixed(2)).toBe("31.00")
    expect(((await (await trader.get(`/api/conversions/${rejected.id}`)).json()) as Conversion).status).toBe("REJECTED")
  } finally {
    await admin.put("/api/sandbox/settings", { data: { orchestration_approval: false } })
    await page.context().close()
    await admin.dispose()
    await trader.dispose()
  }
})

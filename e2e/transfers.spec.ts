import { type Page, expect, test } from "@playwright/test"
import { storageStateOf } from "./helpers"

// Transfers (issue 31): every movement of a profile's funds at the service, placed by the
// console or not. A deposit made with the sandbox's tools is a transfer: it is on /transfers,
// has its record page (amount, fee, total, network and transaction hash for crypto), is in
// the CSV export, and support's search finds it by its id and by its transaction hash.

test.use({ storageState: storageStateOf("admin") })

function origin(): string {
  return String(test.info().project.use.baseURL)
}

async function treasuryId(page: Page): Promise<string> {
  const profiles = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const id = profiles.items.find((p) => p.nickname === "Treasury")?.id
  expect(id).toBeTruthy()
  return id!
}

async function focusSearch(page: Page) {
  const input = page.getByRole("combobox", { name: "Search any id, ref_id or quote id" })
  await expect(async () => {
    await page.locator("main").click({ position: { x: 1, y: 1 } })
    await page.keyboard.press("/")
    await expect(input).toBeFocused({ timeout: 500 })
  }).toPass({ timeout: 15_000 })
  return input
}

test("a crypto deposit is on /transfers, opens its record with network and hash, is in the CSV, and search finds it by id and by hash", async ({ page }) => {
  const profileId = await treasuryId(page)
  const deposited = await page.request.post("/api/sandbox/deposit", {
    headers: { origin: origin() },
    data: { profile_id: profileId, asset: "BTC", amount: "0.01234567" },
  })
  expect(deposited.status(), await deposited.text()).toBe(200)
  const { activity_id: id } = (await deposited.json()) as { activity_id: string }
  expect(id).toBeTruthy()

  await page.goto("/transfers")
  const row = page.locator(`[data-testid="transfer-row"][data-id="${id}"]`)
  await expect(row).toBeVisible()
  await expect(row.getByTestId("row-amount")).toContainText("0.01234567")
  await expect(row).toContainText("BTC")

  // The CSV holds the same transfer, amounts as plain decimals.
  const csv = await page.request.get("/api/transfers/export")
  expect(csv.status()).toBe(200)
  expect(csv.headers()["content-type"]).toContain("text/csv")
  const line = (await csv.text()).split("\n").find((l) => l.startsWith(id))
  expect(line).toBeDefined()
  expect(line).toContain("0.01234567")

  // The record page: its story, the amount, and for crypto the network and the hash.
  await row.getByRole("link", { name: `open transfer ${id}` }).click()
  await expect(page).toHaveURL(new RegExp(`/transfers/${id}$`))
  const record = page.getByTestId("transfer-record")
  await expect(record.getByTestId("transfer-amount")).toContainText("0.01234567")
  await expect(record.getByTestId("transfer-network")).toContainText("BITCOIN")
  await expect(page.getByTestId("timeline")).toBeVisible()
  const hash = (await record.getByTestId("transfer-tx-hash").innerText()).trim().split(/\s+/)[0]!
  expect(hash).toMatch(/^(0x)?[0-9a-f]{64}$/)

  // Support's search: the hash and the id each land on the transfer's page.
  for (const q of [hash, id]) {
    await page.goto("/")
    const input = await focusSearch(page)
    await input.fill(q)
    await input.press("Enter")
    await expect(page).toHaveURL(new RegExp(`/transfers/${id}$`))
  }
})

test("bad filters are refused naming the field, and a transfer that does not exist says so", async ({ page }) => {
  const bad = await page.request.get("/api/transfers?status=DONE")
  expect(bad.status()).toBe(400)
  expect(bad.headers()["content-type"]).toContain("application/problem+json")
  expect(((await bad.json()) as { meta: { fields: Record<string, string> } }).meta.fields).toHaveProperty("status")
  await page.goto(`/transfers/${crypto.randomUUID()}`)
  await expect(page.getByTestId("not-found")).toBeVisible()
})

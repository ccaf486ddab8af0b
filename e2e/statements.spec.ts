import { expect, test } from "@playwright/test"
import { expectNoSeriousA11yViolations } from "./axe"
import { storageStateOf } from "./helpers"

// Statements (issue 32): a balance moved at the sandbox without any record (the fault
// "move a balance without a record") is reported on that day's statement as exactly that
// difference on that asset, narrowed to the two observations around it, and nothing else
// changes. Its own profile, so the other specs' trades on Treasury do not touch it.

test.use({ storageState: storageStateOf("admin") })

function origin(): string {
  return String(test.info().project.use.baseURL)
}

test("a silent movement of 3.50 USD is a 3.50 USD difference on USD for that day, and nothing else changes", async ({ page }, testInfo) => {
  const profiles = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  const profile = profiles.items.find((p) => p.nickname !== "Treasury") ?? profiles.items[0]!
  const today = new Date().toISOString().slice(0, 10)

  // An admin's snapshot now: an observation before the fault.
  const snapshot = await page.request.post("/api/statements/snapshots", { headers: { origin: origin() } })
  expect(snapshot.status(), await snapshot.text()).toBe(201)
  const { taken_at: takenAt } = (await snapshot.json()) as { taken_at: string }

  await page.goto(`/statements?profile_id=${profile.id}&from=${today}`)
  await expect(page.getByTestId("statement-tiles")).toBeVisible()
  await expect(page.getByTestId("unexplained")).toHaveCount(0)
  const before = await page.getByTestId("asset-row").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-asset"), r.textContent]))

  const moved = await page.request.post("/api/sandbox/silent-movement", {
    headers: { origin: origin() },
    data: { profile_id: profile.id, asset: "USD", amount: "3.50" },
  })
  expect(moved.status(), await moved.text()).toBe(200)

  // The form, by keyboard: the same profile and day, submitted with Enter.
  await page.goto("/statements")
  await page.getByLabel("Profile").selectOption(profile.id)
  await page.getByLabel("From (UTC day)").fill(today)
  await page.getByLabel("From (UTC day)").press("Enter")
  await expect(page).toHaveURL(new RegExp(`profile_id=${profile.id}`))

  const unexplained = page.getByTestId("unexplained")
  await expect(unexplained).toHaveCount(1)
  await expect(unexplained).toHaveAttribute("data-asset", "USD")
  await expect(unexplained).toHaveAttribute("data-amount", "3.50")
  await expect(unexplained).toContainText(`3.50 USD not explained by any record between ${takenAt.slice(0, 19).replace("T", " ")} UTC and`)
  await expect(page.locator('[data-testid="asset-row"][data-asset="USD"] [data-testid="asset-difference"]')).toHaveText("3.50")
  // Nothing else changed: every other asset's row reads as before the fault.
  const after = await page.getByTestId("asset-row").evaluateAll((rows) => rows.map((r) => [r.getAttribute("data-asset"), r.textContent]))
  expect(after.filter(([asset]) => asset !== "USD")).toEqual(before.filter(([asset]) => asset !== "USD"))

  await expectNoSeriousA11yViolations(page, testInfo, "statements")
  await page.setViewportSize({ width: 390, height: 844 })
  await expect(page.getByTestId("unexplained")).toBeVisible()
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0)
})

test("a range over 31 days is refused with the field named, on the page and by the API as a problem", async ({ page }) => {
  const profiles = (await (await page.request.get("/api/profiles")).json()) as { items: { id: string }[] }
  const id = profiles.items[0]!.id
  const res = await page.request.get(`/api/statements?profile_id=${id}&from=2026-01-01&to=2026-03-01`)
  expect(res.status()).toBe(400)
  expect(res.headers()["content-type"]).toContain("application/problem+json")
  expect(await res.json()).toMatchObject({ code: "validation_failed", meta: { fields: { to: expect.stringContaining("31") } } })
  await page.goto(`/statements?profile_id=${id}&from=2026-01-01&to=2026-03-01`)
  await expect(page.getByRole("alert").filter({ hasText: "to: at most 31 days" })).toBeVisible()
})

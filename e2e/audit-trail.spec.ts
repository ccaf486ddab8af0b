import AxeBuilder from "@axe-core/playwright"
import { type APIRequestContext, type Page, expect, request as playwrightRequest, test } from "@playwright/test"
import { emailOf, storageStateOf } from "./helpers"
import { adminApi, putPolicy, readPolicy } from "./policy"

// Issue 30, finding 7, replayed as written: three over-limit orders left no audit entry;
// the policy change read "cancel of policy" and applied at once from raw JSON; searching
// the 8 characters a table shows of an id found nothing. Against the embedded sandbox.

function baseURL(): string {
  return `http://127.0.0.1:${process.env.E2E_PORT ?? "3100"}`
}

async function traderApi(): Promise<APIRequestContext> {
  return playwrightRequest.newContext({ baseURL: baseURL(), storageState: storageStateOf("trader"), extraHTTPHeaders: { origin: baseURL() } })
}

async function treasuryId(api: APIRequestContext): Promise<string> {
  const { items } = (await (await api.get("/api/profiles")).json()) as { items: { id: string; nickname: string }[] }
  return items.find((p) => p.nickname === "Treasury")!.id
}

async function btcBuyQuoteId(api: APIRequestContext): Promise<string> {
  const { items } = (await (await api.get("/api/quotes?markets=BTCUSD")).json()) as { items: { id: string; side: string }[] }
  return items.find((q) => q.side === "BUY")!.id
}

async function expectNoSeriousA11yViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([])
}

const auditRow = (page: Page, refId: string) => page.locator(`[data-testid="audit-row"][data-ref-id="${refId}"]`)

test.describe("the audit trail, as an auditor reads it", () => {
  test.use({ storageState: storageStateOf("admin") })

  test("three over-limit orders leave three audit entries, with market, side, notional and why", async ({ page }) => {
    const admin = await adminApi(baseURL())
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    await putPolicy(admin, DEFAULT_POLICY)
    const trader = await traderApi()
    const profileId = await treasuryId(trader)
    const refIds: string[] = []
    // Over the trader's 50,000 USD per order.
    for (const amount of ["60000.00", "75000.00", "90000.00"]) {
      const refId = crypto.randomUUID()
      refIds.push(refId)
      const res = await trader.post(`/api/profiles/${profileId}/quote-executions`, {
        data: { quote_id: await btcBuyQuoteId(trader), quote_amount: amount, ref_id: refId },
      })
      expect(res.status(), await res.text()).toBe(422)
      expect(((await res.json()) as { code: string }).code).toBe("limit_exceeded")
    }

    await page.goto("/audit?state=REFUSED")
    for (const [i, refId] of refIds.entries()) {
      const row = auditRow(page, refId)
      await expect(row.getByTestId("intent-state")).toHaveText("REFUSED")
      await expect(row.getByTestId("audit-staff")).toHaveText(emailOf("trader"))
      await expect(row.getByTestId("audit-market")).toHaveText("BTCUSD BUY")
      await expect(row.getByTestId("audit-notional")).toContainText(["60,000.00", "75,000.00", "90,000.00"][i]!)
      await expect(row.getByTestId("audit-problem")).toContainText("Limit Exceeded")
      await expect(row.getByTestId("audit-problem")).toContainText("over your limit per order")
    }
    // Ids are one-line chips: the ref_id cell is one line high, whatever the id's length.
    const chip = auditRow(page, refIds[0]!).getByTestId("id-chip").first()
    const box = await chip.boundingBox()
    expect(box!.height).toBeLessThan(40)
    await expectNoSeriousA11yViolations(page)

    // The CSV has them too, with who placed them.
    const csv = await (await page.request.get("/api/audit/export?state=REFUSED")).text()
    const header = csv.split("\n")[0]!
    expect(header).toContain("placed_by")
    expect(header).toContain("approved_by")
    for (const refId of refIds) expect(csv).toContain(refId)
    await trader.dispose()
    await admin.dispose()
  })

  test("a policy change is made in a form, shows its diff before it applies, and reads as a policy change", async ({ page }) => {
    const admin = await adminApi(baseURL())
    const { DEFAULT_POLICY } = await import("@/lib/schemas/approvals")
    await putPolicy(admin, DEFAULT_POLICY)
    try {
      await page.goto("/approvals")
      const section = page.getByTestId("policy-section")
      await section.getByTestId("edit-policy").click()
      const form = section.getByRole("form", { name: "Approval policy" })
      // No raw JSON: one input per field; a bad value names its field and rule, and nothing is saved.
      await expect(section.locator("textarea")).toHaveCount(0)
      await form.getByLabel("Limit price tolerance (%)").fill("abc")
      await form.getByLabel("Traders per order, USD").fill("12.345")
      await form.getByRole("button", { name: "Review changes" }).click()
      await expect(form.getByText("Traders per order, USD: at most 2 decimals")).toBeVisible()
      await expect(form.getByText(/^Limit price tolerance \(%\): must be a percentage/)).toBeVisible()
      await expect(form.getByTestId("policy-errors")).toHaveText("2 fields need fixing; each says which rule it breaks.")
      expect(((await readPolicy(admin)) as { price_tolerance_percent: string }).price_tolerance_percent).toBe("0.5")

      await form.getByLabel("Limit price tolerance (%)").fill("0.75")
      await form.getByLabel("Traders per order, USD").fill("40000.00")
      await form.getByRole("button", { name: "Review changes" }).click()
      const review = section.getByTestId("policy-review")
      await expect(review.getByTestId("policy-change")).toHaveCount(2)
      await expect(review.getByTestId("policy-change").filter({ hasText: "price_tolerance_percent" })).toContainText(/0\.5 %\s*0\.75 %/)
      await expect(review.getByTestId("policy-change").filter({ hasText: "role_limits.trader.per_order.USD" })).toContainText(/50,000\.00\s*40,000\.00/)
      // Not applied until confirmed.
      expect(((await readPolicy(admin)) as { price_tolerance_percent: string }).price_tolerance_percent).toBe("0.5")
      await review.getByRole("button", { name: "Apply these changes" }).click()
      await expect(section.getByTestId("edit-policy")).toBeVisible()
      expect(((await readPolicy(admin)) as { price_tolerance_percent: string }).price_tolerance_percent).toBe("0.75")

      await page.goto("/audit?operation=update_policy")
      const row = page.getByTestId("audit-row").first()
      await expect(row.getByTestId("audit-operation")).toHaveText("Change approval policy")
      await expect(row.getByTestId("audit-key")).not.toContainText("cancel")
      await expect(row.getByTestId("audit-policy-diff")).toContainText("price_tolerance_percent: 0.5 % → 0.75 %")
      await expect(row.getByTestId("audit-policy-diff")).toContainText("role_limits.trader.per_order.USD: 50,000.00 → 40,000.00")
      // The only active admin on this server: applied at once, and flagged so.
      await expect(row.getByTestId("policy-single-admin")).toContainText("Single admin")
    } finally {
      await putPolicy(admin, DEFAULT_POLICY)
      await admin.dispose()
    }
  })

  test("searching the 8 characters a table shows of an id finds the record", async ({ page }) => {
    const trader = await traderApi()
    const profileId = await treasuryId(trader)
    const res = await trader.post(`/api/profiles/${profileId}/quote-executions`, {
      data: { quote_id: await btcBuyQuoteId(trader), base_amount: "0.0001", ref_id: crypto.randomUUID() },
    })
    expect(res.status(), await res.text()).toBe(200)
    const execution = (await res.json()) as { id: string }
    const prefix = execution.id.slice(0, 8)

    // What a support person does: paste what the table shows into the header's search.
    await page.goto("/")
    const input = page.getByRole("combobox", { name: "Search any id, ref_id or quote id" })
    await expect(async () => {
      await page.locator("main").click({ position: { x: 1, y: 1 } })
      await page.keyboard.press("/")
      await expect(input).toBeFocused({ timeout: 500 })
    }).toPass({ timeout: 15_000 })
    await input.fill(prefix)
    await input.press("Enter")
    await expect(page).toHaveURL(new RegExp(`/executions/${profileId}/${execution.id}$`))
    await expect(page.getByTestId("record-id")).toHaveText(execution.id)
    await trader.dispose()
  })
})

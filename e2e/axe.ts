import AxeBuilder from "@axe-core/playwright"
import { type Page, type TestInfo, expect } from "@playwright/test"

/** axe on the page as it stands: every violation attached to the report, none serious or critical allowed. */
export async function expectNoSeriousA11yViolations(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze()
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
  await testInfo.attach(`axe ${name}`, { body: JSON.stringify(results.violations, null, 2), contentType: "application/json" })
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`), name).toEqual([])
}

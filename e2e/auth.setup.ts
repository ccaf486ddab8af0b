import { expect, test as setup } from "@playwright/test"
import { DEMO_PASSWORD, ROLES, emailOf, signIn, storageStateOf } from "./helpers"

// Signs each demo role in once through the real form and keeps the session for the suite.
for (const role of ROLES) {
  setup(`sign in as ${role}`, async ({ page }) => {
    await page.goto("/sign-in")
    await signIn(page, emailOf(role), DEMO_PASSWORD)
    await expect(page.getByTestId("staff-role")).toHaveText(role)
    await page.context().storageState({ path: storageStateOf(role) })
  })
}

import { mkdirSync } from "node:fs"
import path from "node:path"
import { type APIRequestContext, type Browser, type BrowserContext, type Page, expect, request as playwrightRequest } from "@playwright/test"
import { DEMO_PASSWORD, type Role, emailOf, signIn } from "./helpers"

/**
 * Signed-in states by origin and role, kept for the worker: the specs of one server's project
 * run one after another in one worker, so a later spec reuses the sign-in an earlier one made
 * (a worker started again after a failure signs in again).
 */
const signedIn = new Map<string, string>()

/**
 * Sessions on an e2e server of its own (its auth secret is not the main server's, so the
 * setup project's states do not sign in there): each role signs in once through the form,
 * and its state is kept per origin (host and port: localhost and 127.0.0.1 hold separate
 * cookies) for the spec's pages and API calls.
 */
export class ServerSessions {
  constructor(readonly origin: string) {}

  private async stateOf(browser: Browser, role: Role): Promise<string> {
    const key = `${this.origin} ${role}`
    const known = signedIn.get(key)
    if (known) return known
    const { hostname, port } = new URL(this.origin)
    const file = path.join("e2e", ".auth", `${hostname}-${port}`, `${role}.json`)
    mkdirSync(path.dirname(file), { recursive: true })
    const context = await browser.newContext({ baseURL: this.origin })
    const page = await context.newPage()
    await page.goto("/sign-in")
    await signIn(page, emailOf(role), DEMO_PASSWORD)
    await expect(page.getByTestId("staff-role")).toHaveText(role)
    await context.storageState({ path: file })
    await context.close()
    signedIn.set(key, file)
    return file
  }

  async context(browser: Browser, role: Role): Promise<BrowserContext> {
    return browser.newContext({ baseURL: this.origin, storageState: await this.stateOf(browser, role) })
  }

  async page(browser: Browser, role: Role): Promise<Page> {
    return (await this.context(browser, role)).newPage()
  }

  /** API calls as `role`, with the Origin header the console's same-origin check wants on writes. */
  async api(browser: Browser, role: Role): Promise<APIRequestContext> {
    return playwrightRequest.newContext({ baseURL: this.origin, storageState: await this.stateOf(browser, role), extraHTTPHeaders: { origin: this.origin } })
  }
}

import type { BrowserContext, Page } from "@playwright/test"

/**
 * Gives the context's page a virtual platform authenticator (Chromium's CDP `WebAuthn.*`):
 * discoverable credentials, user verification that succeeds, presence simulated, as Touch ID
 * or Windows Hello would. Pages must be browsed at a name (localhost), not an IP address:
 * WebAuthn refuses an IP address as RP ID.
 */
export async function withPlatformAuthenticator(context: BrowserContext): Promise<Page> {
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return page
}

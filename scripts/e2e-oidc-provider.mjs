// A real, certified OpenID provider (panva's oidc-provider) for the single sign-on tests,
// on a loopback port at its standard settings: code flow with PKCE, the scope claims
// (email, the console role) only from userinfo, its own sign-in, consent and sign-out
// pages (development interactions: any password is accepted for a listed login).
import http from "node:http"
import Provider from "oidc-provider"

const port = Number(process.env.OIDC_PROVIDER_PORT ?? "3170")
const consoleUrl = process.env.CONSOLE_URL ?? "http://127.0.0.1:3160"
const issuer = `http://127.0.0.1:${port}`

/** Logins at the provider, and the claims each one's account has. */
const ACCOUNTS = {
  viewer: { email: "sso-viewer@example.test", email_verified: true, console_role: "viewer" },
  support: { email: "sso-support@example.test", email_verified: true, console_role: "support" },
  trader: { email: "sso-trader@example.test", email_verified: true, console_role: "trader" },
  admin: { email: "sso-admin@example.test", email_verified: true, console_role: "admin" },
  norole: { email: "sso-norole@example.test", email_verified: true },
  unknownrole: { email: "sso-unknown@example.test", email_verified: true, console_role: "superuser" },
  // Claims the address of an admin without the provider having verified it.
  unverified: { email: "sso-admin@example.test", email_verified: false, console_role: "admin" },
  manyroles: { email: "sso-many@example.test", email_verified: true, console_role: ["viewer", "admin"] },
}

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID ?? "treasury-console",
      client_secret: process.env.OIDC_CLIENT_SECRET ?? "e2e-oidc-client-secret-0123456789",
      redirect_uris: [`${consoleUrl}/api/auth/callback/oidc`],
      post_logout_redirect_uris: [`${consoleUrl}/sign-in`],
      grant_types: ["authorization_code"],
      response_types: ["code"],
    },
  ],
  // The standard claims of the email scope, and the console role released with profile.
  claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "console_role"] },
  async findAccount(_ctx, id) {
    const account = ACCOUNTS[id]
    if (!account) return undefined
    return { accountId: id, claims: () => ({ sub: id, name: id, ...account }) }
  },
})
// Plain http on loopback: the provider is told its requests are not behind a proxy.
provider.proxy = false

const server = http.createServer(provider.callback())
server.listen(port, "127.0.0.1", () => process.stdout.write(`oidc-provider listening on ${issuer}\n`))
const stop = () => server.close(() => process.exit(0))
process.on("SIGINT", stop)
process.on("SIGTERM", stop)

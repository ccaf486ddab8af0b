import { mkdtemp, readFile, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import path from "node:path"
import { eq } from "drizzle-orm"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxClients } from "@/lib/db/schema"
import { createSandbox } from "@/lib/sandbox/index"
import { ALL_SCOPES, SandboxClient, TEST_CONFIG, type TestSandbox, startTestSandbox } from "@/test/sandbox"
import { testDrivers } from "@/test/db"

interface Problem {
  type: string
  title: string
  status: number
  detail?: string
}

describe.each(testDrivers())("OAuth and scopes on %s", (driver) => {
  let t: TestSandbox
  let secret: string
  let clientId: string
  beforeAll(async () => {
    t = await startTestSandbox(driver)
    ;({ clientId, clientSecret: secret } = t.client.credentials)
  })
  afterAll(async () => {
    await t?.close()
  })

  const basic = (id: string, pass: string) => `Basic ${Buffer.from(`${id}:${pass}`).toString("base64")}`

  describe("token endpoint", () => {
    it("grants a bearer token for credentials in the body, with the scopes asked for", async () => {
      const { status, headers, body } = await t.client.tokenRequest({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: secret,
        scope: "exchange:read_quote funding:read_profile",
      })
      expect(status).toBe(200)
      expect(body).toMatchObject({ expires_in: 3599, scope: "exchange:read_quote funding:read_profile", token_type: "bearer" })
      expect(headers.get("cache-control")).toBe("no-store")
    })

    it("accepts HTTP Basic credentials and grants every scope of the client when none is asked", async () => {
      const { status, body } = await t.client.tokenRequest({ grant_type: "client_credentials" }, { authorization: basic(clientId, secret) })
      expect(status).toBe(200)
      expect(String(body.scope).split(" ").sort()).toEqual([...ALL_SCOPES].sort())
    })

    it("uses the configured token lifetime and refuses the token once it has expired", async () => {
      const shortLived = createSandbox({ db: t.database.db, config: { ...TEST_CONFIG, tokenTtlS: 60 }, now: t.clock.date })
      const client = new SandboxClient("http://sandbox.internal", (r) => shortLived.fetch(r), t.client.credentials)
      const { body } = await client.tokenRequest({ grant_type: "client_credentials", client_id: clientId, client_secret: secret })
      expect(body.expires_in).toBe(60)
      const token = body.access_token as string
      expect((await client.request("GET", "/v2/profiles", { token })).status).toBe(200)
      t.clock.advance(60_000)
      const expired = await client.request<Problem>("GET", "/v2/profiles", { token })
      expect(expired.status).toBe(401)
      expect(expired.body.detail).toBe("access token expired")
      await shortLived.stop()
    })

    const errors: [string, Record<string, string>, Record<string, string>, number, string][] = [
      ["no grant_type", { client_id: "test-client", client_secret: "x" }, {}, 400, "invalid_request"],
      ["another grant type", { grant_type: "password", username: "a", password: "b" }, {}, 400, "unsupported_grant_type"],
      ["a wrong secret", { grant_type: "client_credentials", client_id: "test-client", client_secret: "wrong" }, {}, 401, "invalid_client"],
      ["an unknown client", { grant_type: "client_credentials", client_id: "nobody", client_secret: "x" }, {}, 401, "invalid_client"],
      ["no credentials", { grant_type: "client_credentials" }, {}, 401, "invalid_client"],
      ["a wrong Basic secret", { grant_type: "client_credentials" }, { authorization: "Basic dGVzdC1jbGllbnQ6d3Jvbmc=" }, 401, "invalid_client"],
    ]
    it.each(errors)("answers %s per RFC 6749 §5.2", async (_name, form, headers, status, error) => {
      const answer = await t.client.tokenRequest(form, headers)
      expect(answer.status).toBe(status)
      expect(answer.body.error).toBe(error)
      if (status === 401) expect(answer.headers.get("www-authenticate")).toMatch(/^Basic/)
      expect(JSON.stringify(answer.body)).not.toContain(secret)
    })

    it("answers invalid_scope for a scope the client may not have", async () => {
      const answer = await t.client.tokenRequest({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: secret,
        scope: "exchange:read_quote funding:write_profile",
      })
      expect(answer.status).toBe(400)
      expect(answer.body.error).toBe("invalid_scope")
    })

    it("takes the form as multipart/form-data, as the service's docs send it with curl -F", async () => {
      const form = new FormData()
      form.append("grant_type", "client_credentials")
      form.append("client_id", clientId)
      form.append("client_secret", secret)
      form.append("scope", "orchestration:read_orchestration orchestration:write_orchestration")
      // fetch writes the multipart boundary into the content type itself.
      const response = await t.client.raw("/oauth2/token", { method: "POST", body: form })
      expect(response.headers.get("content-type")).toMatch(/^application\/json/)
      expect(response.status).toBe(200)
      const body = (await response.json()) as Record<string, unknown>
      expect(body).toMatchObject({ scope: "orchestration:read_orchestration orchestration:write_orchestration", token_type: "bearer" })
      const orchestrations = await t.client.request("GET", "/v2/orchestration/orchestrations", { token: body.access_token as string })
      expect(orchestrations.status).toBe(200)

      const withFile = new FormData()
      withFile.append("grant_type", "client_credentials")
      withFile.append("client_secret", new Blob([secret]), "secret.txt")
      const refused = await t.client.raw("/oauth2/token", { method: "POST", body: withFile })
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as { error: string }).error).toBe("invalid_request")
    })

    it("answers invalid_request for credentials sent two ways, a repeated parameter or a JSON body", async () => {
      const both = await t.client.tokenRequest(
        { grant_type: "client_credentials", client_secret: secret },
        { authorization: basic(clientId, secret) },
      )
      expect(both.body.error).toBe("invalid_request")
      const repeated = await t.client.raw("/oauth2/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `grant_type=client_credentials&client_id=${clientId}&client_secret=${secret}&scope=a&scope=b`,
      })
      expect(repeated.status).toBe(400)
      expect(((await repeated.json()) as { error: string }).error).toBe("invalid_request")
      const json = await t.client.raw("/oauth2/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "client_credentials" }),
      })
      expect(json.status).toBe(400)
      expect(((await json.json()) as { error: string }).error).toBe("invalid_request")
    })
  })

  describe("bearer tokens on /v2", () => {
    it("answers 401 without a token, with a bad one, or with another scheme", async () => {
      const attempts: Record<string, string>[] = [{}, { authorization: "Bearer not-a-token" }, { authorization: basic(clientId, secret) }]
      for (const headers of attempts) {
        const { status, headers: answer, body } = await t.client.request<Problem>("GET", "/v2/profiles", { token: null, headers })
        expect(status).toBe(401)
        expect(body).toMatchObject({ type: "about:blank", title: "Unauthorized", status: 401 })
        expect(answer.get("www-authenticate")).toMatch(/^Bearer/)
      }
    })

    const routes: [string, string, string][] = [
      ["GET", "/v2/quotes", "exchange:read_quote"],
      ["GET", "/v2/profiles", "funding:read_profile"],
      ["GET", "/v2/profiles/default", "funding:read_profile"],
      ["GET", "/v2/profiles/default/balances", "funding:read_profile"],
      ["POST", "/v2/profiles/default/quote-executions", "exchange:write_quote_execution"],
      ["GET", "/v2/profiles/default/quote-executions", "exchange:read_quote_execution"],
      ["GET", "/v2/profiles/default/quote-executions/x", "exchange:read_quote_execution"],
      ["POST", "/v2/conversion/stablecoins", "conversion:write_conversion_stablecoin"],
      ["GET", "/v2/conversion/stablecoins", "conversion:read_conversion_stablecoin"],
      ["GET", "/v2/conversion/stablecoins/x", "conversion:read_conversion_stablecoin"],
      ["DELETE", "/v2/conversion/stablecoins/x", "conversion:write_conversion_stablecoin"],
      ["POST", "/v2/sandbox/profiles/default/deposit", "funding:read_profile"],
      ["GET", "/admin/faults", "sandbox:admin"],
      ["PUT", "/admin/faults", "sandbox:admin"],
    ]
    it.each(routes)("%s %s needs %s (403 naming found and required scopes)", async (method, route, scope) => {
      const held = scope === "exchange:read_quote" ? "funding:read_profile" : "exchange:read_quote"
      const token = await t.client.token([held])
      const { status, body } = await t.client.request<Problem>(method, route, { token, body: method === "GET" || method === "DELETE" ? undefined : {} })
      expect(status).toBe(403)
      expect(body).toEqual({
        type: "about:blank",
        title: "Forbidden",
        status: 403,
        detail: `insufficient scopes: found [${held}], required one of [${scope}]`,
      })
      const allowed = await t.client.request(method, route, { token: await t.client.token([scope]), body: method === "GET" || method === "DELETE" ? undefined : {} })
      expect(allowed.status).not.toBe(403)
    })
  })

  describe("client registration", () => {
    let dir: string
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), "sandbox-credentials-"))
    })
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true })
    })

    it("generates a pair once, stores only its hash, and keeps the plaintext in a 0600 file across restarts", async () => {
      const file = path.join(dir, "nested", "sandbox-client.json")
      const first = createSandbox({ db: t.database.db, config: TEST_CONFIG, now: t.clock.date, credentialsFile: file })
      const generated = await first.ensureClient()
      expect(await first.ensureClient()).toEqual(generated)
      await first.stop()
      expect((await stat(file)).mode & 0o777).toBe(0o600)
      expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ client_id: generated.clientId, client_secret: generated.clientSecret })
      const [row] = await t.database.db.select().from(sandboxClients).where(eq(sandboxClients.clientId, generated.clientId))
      expect(row?.secretHash).toMatch(/^scrypt\$/)
      expect(row?.secretHash).not.toContain(generated.clientSecret)

      const restarted = createSandbox({ db: t.database.db, config: TEST_CONFIG, now: t.clock.date, credentialsFile: file })
      expect(await restarted.ensureClient()).toEqual(generated)
      const client = new SandboxClient("http://sandbox.internal", (r) => restarted.fetch(r), generated)
      expect((await client.request("GET", "/v2/profiles")).status).toBe(200)
      await restarted.stop()
    })

    it("takes a configured pair and replaces the stored hash when its secret changes", async () => {
      const before = createSandbox({ db: t.database.db, config: TEST_CONFIG, clientId: "env-client", clientSecret: "first-secret-0123456789" })
      await before.ensureClient()
      const after = createSandbox({ db: t.database.db, config: TEST_CONFIG, clientId: "env-client", clientSecret: "second-secret-0123456789" })
      expect(await after.ensureClient()).toEqual({ clientId: "env-client", clientSecret: "second-secret-0123456789" })
      const client = new SandboxClient("http://sandbox.internal", (r) => after.fetch(r), { clientId: "env-client", clientSecret: "x" })
      const old = await client.tokenRequest({ grant_type: "client_credentials", client_id: "env-client", client_secret: "first-secret-0123456789" })
      expect(old.status).toBe(401)
      const current = await client.tokenRequest({ grant_type: "client_credentials", client_id: "env-client", client_secret: "second-secret-0123456789" })
      expect(current.status).toBe(200)
      await before.stop()
      await after.stop()
    })
  })
})

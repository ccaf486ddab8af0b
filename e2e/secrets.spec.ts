import { readFileSync, readdirSync, statSync } from "node:fs"
import path from "node:path"
import { expect, test } from "@playwright/test"
import canaries from "./canaries.json" with { type: "json" }

const distDir = process.env.NEXT_DIST_DIR || ".next"
const port = process.env.E2E_PORT ?? "3100"

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry)
    return statSync(full).isDirectory() ? filesUnder(full) : [full]
  })
}

// The playwright project "secrets" runs this file last: the server log it reads is the whole suite's.
const secrets = Object.entries(canaries).filter(([name]) => name.includes("SECRET"))

test("no file the browser can load contains the client secret or the auth secret", () => {
  const files = filesUnder(path.join(distDir, "static"))
  expect(files.length).toBeGreaterThan(0)
  for (const file of files) {
    const content = readFileSync(file, "utf8")
    for (const [name, value] of secrets) expect(content.includes(value), `${name} found in ${file}`).toBe(false)
  }
})

test("the server logged no secret and no bearer token during the whole suite", () => {
  const log = readFileSync(path.join("test-results", `server-${port}.log`), "utf8")
  expect(log.length).toBeGreaterThan(0)
  for (const [name, value] of secrets) expect(log.includes(value), `${name} found in the server log`).toBe(false)
  expect(log).not.toMatch(/Bearer\s+(?!\[redacted\])[A-Za-z0-9._~+/=-]{8,}/)
})

test("pages and API answers never carry the secrets", async ({ request }) => {
  for (const url of ["/sign-in", "/api/health"]) {
    const body = await (await request.get(url)).text()
    for (const [name, value] of secrets) expect(body.includes(value), `${name} in ${url}`).toBe(false)
  }
})

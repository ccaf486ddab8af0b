// Makes sure Playwright has a Chromium to drive: Debian's /usr/bin/chromium (or
// CHROMIUM_PATH) when present, else Playwright's own build, installed here if missing.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { chromium } from "@playwright/test"

const system = process.env.CHROMIUM_PATH || "/usr/bin/chromium"
if (existsSync(system)) {
  console.log(`e2e browser: ${system}`)
} else if (existsSync(chromium.executablePath())) {
  console.log(`e2e browser: Playwright's Chromium at ${chromium.executablePath()}`)
} else {
  console.log("e2e browser: installing Playwright's Chromium (no system Chromium found)")
  execFileSync("npx", ["playwright", "install", "chromium"], { stdio: "inherit" })
}

// Builds the app for the e2e suite with known canary secrets in the environment, so the
// suite can prove that none of them reaches the browser bundle.
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"

const canaries = JSON.parse(readFileSync(new URL("../e2e/canaries.json", import.meta.url), "utf8"))
execFileSync("npx", ["next", "build"], {
  stdio: "inherit",
  env: { ...process.env, ...canaries, NEXT_TELEMETRY_DISABLED: "1" },
})

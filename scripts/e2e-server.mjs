// Starts the production build in sandbox mode on a fresh temporary data folder, for the
// Playwright suite. The folder is removed when the server stops.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"

const port = process.env.E2E_PORT ?? "3100"
const dataDir = mkdtempSync(path.join(tmpdir(), "console-e2e-"))
const child = spawn("npx", ["next", "start", "-p", port, "-H", "127.0.0.1"], {
  stdio: "inherit",
  env: {
    ...process.env,
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    SANDBOX_SETTLE_DELAY_MS: process.env.SANDBOX_SETTLE_DELAY_MS ?? "1500",
    LOG_LEVEL: process.env.LOG_LEVEL ?? "warn",
  },
})
const stop = (signal) => {
  child.kill(signal)
}
process.on("SIGINT", () => stop("SIGINT"))
process.on("SIGTERM", () => stop("SIGTERM"))
child.on("exit", (code) => {
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(code ?? 0)
})

// Starts the production build in sandbox mode on a fresh temporary data folder, for the
// Playwright suite. The folder is removed when the server stops.
import { spawn } from "node:child_process"
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

const port = process.env.E2E_PORT ?? "3100"
const dataDir = mkdtempSync(path.join(tmpdir(), "console-e2e-"))
const canaries = JSON.parse(readFileSync(new URL("../e2e/canaries.json", import.meta.url), "utf8"))
// The server's output is kept too, so the suite can check that no secret was logged.
mkdirSync("test-results", { recursive: true })
const log = createWriteStream(path.join("test-results", `server-${port}.log`))
// npm start: the server runs as it does when deployed (package.json's start script sets its heap limit).
// --keepAliveTimeout: the suite's API clients keep their sockets between tests; with Node's
// default 5 s the server closed one just as a request was sent on it (ECONNRESET, twice in
// a run at load 12). Ten minutes leaves that race to no test.
// Its own process group (npm, the shell, next-server): a signal to this script reaches the
// server itself, which npm's shell does not pass on (a SIGTERM here left next-server running,
// on a data folder this script had removed).
const child = spawn("npm", ["start", "--", "-p", port, "-H", "127.0.0.1", "--keepAliveTimeout", "600000"], {
  detached: true,
  stdio: ["ignore", "pipe", "pipe"],
  env: {
    ...process.env,
    ...canaries,
    DATA_DIR: dataDir,
    NODE_ENV: "production",
    // next start refuses to guess the mode, and sandbox mode there needs its own demo password.
    CONSOLE_MODE: "sandbox",
    DEMO_PASSWORD: process.env.DEMO_PASSWORD || "demo-password",
    NEXT_TELEMETRY_DISABLED: "1",
    // E2E_PUBLIC_URL: a server whose pages are browsed at another name (http://localhost:… for WebAuthn, which refuses an IP address as RP ID).
    NEXTAUTH_URL: process.env.E2E_PUBLIC_URL || `http://127.0.0.1:${port}`,
    // The suite signs each demo role in once, at its start (e2e/auth.setup.ts), and reuses those
    // sessions: on a slow machine the whole run can last longer than the default 30-minute idle sign-out.
    SESSION_IDLE_MINUTES: process.env.SESSION_IDLE_MINUTES ?? "240",
    SANDBOX_SETTLE_DELAY_MS: process.env.SANDBOX_SETTLE_DELAY_MS ?? "1500",
    // debug: every upstream call is logged, so the no-secrets-in-logs check has something to read.
    LOG_LEVEL: process.env.LOG_LEVEL ?? "debug",
  },
})
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    log.write(chunk)
    process.stdout.write(chunk)
  })
}
/** Whether any process of the server's group is left. */
function groupAlive() {
  try {
    process.kill(-child.pid, 0)
    return true
  } catch {
    return false
  }
}
function signalGroup(signal) {
  try {
    process.kill(-child.pid, signal)
  } catch {
    // The group is gone.
  }
}
process.on("SIGINT", () => signalGroup("SIGINT"))
process.on("SIGTERM", () => signalGroup("SIGTERM"))
child.on("exit", async (code) => {
  // npm can exit before next-server has: the data folder goes only once the whole group has
  // (its graceful shutdown gets 20 s, then SIGKILL).
  const deadline = Date.now() + 20_000
  while (groupAlive() && Date.now() < deadline) await sleep(100)
  if (groupAlive()) signalGroup("SIGKILL")
  rmSync(dataDir, { recursive: true, force: true })
  process.exit(code ?? 0)
})

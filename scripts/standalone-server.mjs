// Starts the standalone server exactly as the image does (Dockerfile): the same layout
// (<distDir>/standalone, its static files and public/), the same command (read from the
// Dockerfile's CMD), the app folder read-only, and, when run as root, as an unprivileged
// user (nobody) with only DATA_DIR writable. For the e2e smoke (e2e/standalone.spec.ts).
// The folders are removed when the server stops.
import { spawn } from "node:child_process"
import { chmodSync, chownSync, cpSync, createWriteStream, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"

const port = process.env.E2E_PORT ?? "3180"
const distDir = process.env.NEXT_DIST_DIR || ".next"
const standalone = path.join(distDir, "standalone")
if (!statSync(path.join(standalone, "server.js"), { throwIfNoEntry: false })) {
  console.error(`${standalone}/server.js is missing: build first (next.config.mjs sets output: "standalone")`)
  process.exit(1)
}

// The command of the image's last stage: CMD ["node", ...args].
const dockerfile = readFileSync("Dockerfile", "utf8")
const cmdLine = dockerfile.split("\n").filter((line) => line.startsWith("CMD ")).at(-1)
const cmd = cmdLine ? JSON.parse(cmdLine.slice(4)) : null
if (!Array.isArray(cmd) || cmd[0] !== "node") throw new Error(`the Dockerfile's CMD is not ["node", ...]: ${cmdLine}`)

// The image's layout: COPY <distDir>/standalone ./, <distDir>/static, public.
const root = mkdtempSync(path.join(tmpdir(), "console-standalone-"))
const app = path.join(root, "app")
const data = path.join(root, "data")
cpSync(standalone, app, { recursive: true, verbatimSymlinks: true })
cpSync(path.join(distDir, "static"), path.join(app, distDir, "static"), { recursive: true })
cpSync("public", path.join(app, "public"), { recursive: true })
mkdirSync(data, { mode: 0o700 })

/** Read-only for everyone: files 0444, folders 0555. */
function readOnly(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isSymbolicLink()) continue
    if (entry.isDirectory()) readOnly(full)
    else chmodSync(full, entry.name.endsWith(".node") || /\/\.bin\//.test(full) ? 0o555 : 0o444)
  }
  chmodSync(dir, 0o555)
}
readOnly(app)
chmodSync(root, 0o755)

// Root ignores file modes: the server runs as nobody then, owning only its data folder.
const asRoot = typeof process.getuid === "function" && process.getuid() === 0
const NOBODY = 65534
if (asRoot) chownSync(data, NOBODY, NOBODY)

mkdirSync("test-results", { recursive: true })
const log = createWriteStream(path.join("test-results", `server-${port}.log`))
const child = spawn(process.execPath, cmd.slice(1), {
  cwd: app,
  stdio: ["ignore", "pipe", "pipe"],
  ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
  env: {
    PATH: process.env.PATH,
    // The image's ENV, with this test's port, host and data folder.
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    HOSTNAME: "127.0.0.1",
    PORT: port,
    DATA_DIR: data,
    HOME: data,
    CONSOLE_MODE: "sandbox",
    DEMO_PASSWORD: process.env.DEMO_PASSWORD || "demo-password",
    NEXTAUTH_URL: `http://127.0.0.1:${port}`,
    SANDBOX_SETTLE_DELAY_MS: "1500",
    LOG_LEVEL: "info",
  },
})
for (const stream of [child.stdout, child.stderr]) {
  stream.on("data", (chunk) => {
    log.write(chunk)
    process.stdout.write(chunk)
  })
}
const stop = (signal) => child.kill(signal)
process.on("SIGINT", () => stop("SIGINT"))
process.on("SIGTERM", () => stop("SIGTERM"))
child.on("exit", (code, signal) => {
  console.log(`standalone server exited: code ${code}, signal ${signal}`)
  // Writable again, so the folder can go.
  try {
    for (const dir of [app]) chmodRecursive(dir)
  } catch {
    // Best effort.
  }
  rmSync(root, { recursive: true, force: true })
  process.exit(code ?? 0)
})

function chmodRecursive(dir) {
  chmodSync(dir, 0o755)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory() && !entry.isSymbolicLink()) chmodRecursive(full)
  }
}

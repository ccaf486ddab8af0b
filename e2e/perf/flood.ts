// npx tsx e2e/perf/flood.ts [--dist DIR]
// Six concurrent anonymous 100 MB bodies against a production build in sandbox mode (the
// token endpoint, next-auth's sign-in callback and a console API route, with and without
// Content-Length), while /api/health is asked every 100 ms. Goals: the server's RSS ends
// within 50 MiB of where it was, and /api/health answers in under 200 ms throughout.
// Uses the build in DIR (default .next: `node scripts/e2e-build.mjs` or `next build`).
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import http from "node:http"
import path from "node:path"
import { cleanupAll, freePort, onCleanup, tempDir } from "./processes"
import { startConsole } from "./servers"

const MiB = 1024 * 1024
const BODY = 100 * MiB
const distArg = process.argv.indexOf("--dist")
const distDir = distArg > 0 ? (process.argv[distArg + 1] ?? ".next") : ".next"

/** The process listening on the port (next start renames itself next-server). */
function listenerPid(port: number): number {
  const out = execFileSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" })
  const pid = /pid=(\d+)/.exec(out)?.[1]
  if (!pid) throw new Error(`no process listens on ${port}`)
  return Number(pid)
}

function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  return Number(kb) / 1024
}

function flood(port: number, target: string, withLength: boolean): Promise<string> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { "content-type": target.startsWith("/api/conversions") ? "application/json" : "application/x-www-form-urlencoded" }
    if (withLength) headers["content-length"] = String(BODY)
    const req = http.request({ host: "127.0.0.1", port, path: target, method: "POST", headers }, (res) => {
      res.resume()
      res.on("end", () => resolve(String(res.statusCode)))
    })
    req.on("error", (error: NodeJS.ErrnoException) => resolve(`closed (${error.code ?? "error"})`))
    const chunk = Buffer.alloc(64 * 1024, 97)
    let sent = 0
    const pump = () => {
      while (sent < BODY) {
        sent += chunk.length
        if (!req.write(chunk)) {
          req.once("drain", pump)
          return
        }
      }
      req.end()
    }
    pump()
  })
}

async function healthMs(origin: string): Promise<number> {
  const started = performance.now()
  await (await fetch(`${origin}/api/health`)).text()
  return performance.now() - started
}

async function main(): Promise<void> {
  const port = await freePort(3600, 3699)
  const work = tempDir("console-flood-")
  const app = await startConsole({ name: "console-flood", distDir, port, dataDir: path.join(work, "data"), logDir: work, env: {} })
  onCleanup(() => app.server.stop())
  const pid = listenerPid(port)
  for (let i = 0; i < 5; i++) await healthMs(app.origin)
  await new Promise((r) => setTimeout(r, 2000))
  const before = rssMiB(pid)
  let peak = before
  const latencies: number[] = []
  let flooding = true
  const sampler = (async () => {
    while (flooding) {
      latencies.push(await healthMs(app.origin))
      peak = Math.max(peak, rssMiB(pid))
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  const targets = ["/sandbox/oauth2/token", "/api/auth/callback/credentials", "/api/conversions"]
  const answers = await Promise.all(targets.flatMap((t) => [flood(port, t, true), flood(port, t, false)]))
  flooding = false
  await sampler
  await new Promise((r) => setTimeout(r, 1000))
  const after = rssMiB(pid)
  const worst = Math.max(...latencies)
  const result = {
    answers,
    rss_before_mib: Number(before.toFixed(1)),
    rss_peak_mib: Number(peak.toFixed(1)),
    rss_after_mib: Number(after.toFixed(1)),
    health_samples: latencies.length,
    health_worst_ms: Number(worst.toFixed(1)),
  }
  console.log(JSON.stringify(result))
  const met = peak - before <= 50 && after - before <= 50 && worst < 200
  console.log(met ? "goals met: RSS within 50 MiB, /api/health under 200 ms" : "goals MISSED")
  process.exitCode = met ? 0 : 1
}

try {
  await main()
} finally {
  await cleanupAll()
}

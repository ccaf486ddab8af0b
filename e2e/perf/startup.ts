// 8, 9. Start-up and memory at rest: `next start` to the first 2xx from /api/health, on a
// fresh data folder (or database) and on an existing one, with the process group's RSS once
// settled; then one round of the throughput load on the existing folder, for its peak. And
// what opening PGlite costs a Node process by itself, the console's way and as it comes.
import { execFileSync } from "node:child_process"
import path from "node:path"
import { z } from "zod"
import { type Bench, logLine } from "./context"
import { MEMORY_GOALS, peakUnderLoad } from "./memory"
import { createBenchDatabase } from "./postgres"
import { tempDir } from "./processes"
import { repoRoot } from "./servers"
import { median, round } from "./stats"
import { type BenchClient, type ConsoleUnderTest, startConsoleUnderTest } from "./targets"

/** Start-up goals, sandbox mode (seconds): an existing folder, and a fresh one (the database is created first). */
const START_GOALS = { existingS: 3, freshS: 8 } as const

interface Start {
  ms: number
  cpuMs: number
  rssMiB: number
}

async function startOnce(bench: Bench, client: BenchClient, name: string, where: { dataDir?: string; databaseUrl?: string }): Promise<{ start: Start; app: ConsoleUnderTest }> {
  const app = await startConsoleUnderTest(bench, client, { name, quiet: true, ...where })
  logLine(`  ${name}: started in ${round(app.startMs / 1000, 2)} s (CPU ${round(app.startCpuMs / 1000, 2)} s), ${round(app.rssAfterStartMiB, 0)} MiB after start`)
  return { start: { ms: app.startMs, cpuMs: app.startCpuMs, rssMiB: app.rssAfterStartMiB }, app }
}

export async function measureStartup(bench: Bench, client: BenchClient, postgresServer: string | null): Promise<void> {
  const { cfg, rows, results } = bench
  const n = cfg.startRounds
  logLine(`start-up: ${n} starts each on a fresh and on an existing data folder${postgresServer ? ", and on a fresh and an existing Postgres database" : ""}`)
  const sandboxFresh: Start[] = []
  const sandboxExisting: Start[] = []
  const folder = tempDir("console-bench-start-")
  for (let r = 0; r < n; r++) {
    const dataDir = r === 0 ? folder : tempDir("console-bench-start-")
    const { start, app } = await startOnce(bench, client, `console-fresh-${r + 1}`, { dataDir })
    sandboxFresh.push(start)
    await app.server.stop(20_000)
  }
  let existingPeak = Number.NaN
  for (let r = 0; r < n; r++) {
    const { start, app } = await startOnce(bench, client, `console-existing-${r + 1}`, { dataDir: folder })
    sandboxExisting.push(start)
    if (r === n - 1) {
      existingPeak = (await peakUnderLoad(app.origin, app.server, app.headers, cfg.throughputSeconds)).peakMiB
      logLine(`  existing folder, one round of the throughput load: peak ${round(existingPeak, 0)} MiB`)
    }
    await app.server.stop(20_000)
  }
  const postgres: { fresh: Start[]; existing: Start[]; peakMiB: number } = { fresh: [], existing: [], peakMiB: Number.NaN }
  if (postgresServer) {
    let databaseUrl = ""
    for (let r = 0; r < n; r++) {
      databaseUrl = await createBenchDatabase(postgresServer)
      const { start, app } = await startOnce(bench, client, `console-postgres-fresh-${r + 1}`, { databaseUrl })
      postgres.fresh.push(start)
      await app.server.stop(20_000)
    }
    for (let r = 0; r < n; r++) {
      const { start, app } = await startOnce(bench, client, `console-postgres-existing-${r + 1}`, { databaseUrl })
      postgres.existing.push(start)
      if (r === n - 1) {
        postgres.peakMiB = (await peakUnderLoad(app.origin, app.server, app.headers, cfg.throughputSeconds)).peakMiB
        logLine(`  Postgres mode, one round of the throughput load: peak ${round(postgres.peakMiB, 0)} MiB`)
      }
      await app.server.stop(20_000)
    }
  }
  const pglite = pgliteAlone(bench.args.smoke)
  results.startup = { sandboxFresh, sandboxExisting, existingPeakMiB: existingPeak, postgres, pgliteAlone: pglite }

  const seconds = (starts: Start[]) => median(starts.map((s) => s.ms)) / 1000
  const startGroup = "9. start-up, next start to /api/health 200"
  const startRow = (what: string, starts: Start[], goalS: number | null) =>
    rows.push({
      group: startGroup,
      what: `${what} (median of ${starts.length})`,
      console: `${round(seconds(starts), 2)} s`,
      baseline: "",
      value: `${starts.map((s) => round(s.ms / 1000, 1)).join(", ")} s; CPU ${round(median(starts.map((s) => s.cpuMs)) / 1000, 2)} s`,
      goal: goalS === null ? "report" : `≤ ${goalS} s`,
      ok: goalS === null ? starts.length > 0 : seconds(starts) <= goalS,
    })
  startRow("sandbox mode, existing data folder", sandboxExisting, START_GOALS.existingS)
  startRow("sandbox mode, fresh data folder", sandboxFresh, START_GOALS.freshS)
  if (postgresServer) {
    startRow("Postgres mode, existing database", postgres.existing, null)
    startRow("Postgres mode, fresh database (migrations run)", postgres.fresh, null)
  }

  const mem = "8. memory"
  const rss = (starts: Start[]) => median(starts.map((s) => s.rssMiB))
  const memRow = (what: string, mib: number, goal: number | null, value = "") =>
    rows.push({ group: mem, what, console: `${round(mib, 0)} MiB`, baseline: "", value, goal: goal === null ? "report" : `≤ ${goal} MiB`, ok: goal === null ? Number.isFinite(mib) : mib <= goal })
  memRow(`sandbox mode, fresh folder: RSS after start (median of ${sandboxFresh.length})`, rss(sandboxFresh), MEMORY_GOALS.afterStartMiB)
  memRow(`sandbox mode, existing folder: RSS after start (median of ${sandboxExisting.length})`, rss(sandboxExisting), MEMORY_GOALS.afterStartMiB)
  memRow("sandbox mode, existing folder: peak RSS, one round of the throughput load", existingPeak, MEMORY_GOALS.peakMiB)
  if (postgresServer) {
    memRow(`Postgres mode, fresh database: RSS after start (median of ${postgres.fresh.length})`, rss(postgres.fresh), null)
    memRow(`Postgres mode, existing database: RSS after start (median of ${postgres.existing.length})`, rss(postgres.existing), null)
    memRow("Postgres mode: peak RSS, one round of the throughput load", postgres.peakMiB, null)
  }
  for (const p of pglite) memRow(`PGlite alone, added to a Node process: ${p.what}`, p.addedMiB, null, `${round(p.ms / 1000, 2)} s`)
}

const pgliteOutput = z.object({ addedMiB: z.number(), ms: z.number() })

/**
 * PGlite by itself in a Node process: on a fresh and an existing folder, as it comes and as
 * the console opens it. A smoke run leaves out the two that run initdb (seconds each).
 */
function pgliteAlone(smoke: boolean): { what: string; addedMiB: number; ms: number }[] {
  const tsx = path.join(repoRoot, "node_modules/tsx/dist/cli.mjs")
  const measure = (how: "postgres-defaults" | "console" | "console-initdb", dataDir: string) =>
    pgliteOutput.parse(
      JSON.parse(
        execFileSync(process.execPath, [tsx, "--conditions=react-server", path.join(repoRoot, "e2e/perf/pglite-memory.ts"), how, dataDir], {
          cwd: repoRoot,
          encoding: "utf8",
        }),
      ),
    )
  const asItComes = path.join(tempDir("console-bench-pglite-"), "db")
  const consoles = path.join(tempDir("console-bench-pglite-"), "db")
  const initdb = smoke
    ? []
    : [
        { what: "PGlite.create(), fresh folder, Postgres's settings", ...measure("postgres-defaults", asItComes) },
        { what: "the console's way, fresh folder, first on this install (initdb in a child process, then opened)", ...measure("console-initdb", path.join(tempDir("console-bench-pglite-"), "db")) },
      ]
  const fresh = { what: "the console's way, fresh folder (a copy of the kept new database, then opened)", ...measure("console", consoles) }
  return [
    ...initdb,
    { what: "PGlite.create(), existing folder, Postgres's settings", ...measure("postgres-defaults", consoles) },
    fresh,
    { what: "the console's way, existing folder", ...measure("console", consoles) },
  ]
}

// npm run bench [-- --smoke] [--build|--no-build] [--dist DIR] [--only a,b] [--rounds N] [--cpu-prof] [--explain] [--traced] [--docs|--no-docs]
//   --rounds N  N rounds of each measurement instead of the default (5 latency, 3 others)
//   --cpu-prof  the sandbox-mode console (and the push section's) writes a V8 CPU profile to test-results/bench-profiles/
//   --explain   the sandbox-mode console logs at debug level, and the latency rows are split
//               into the service call (the in-process sandbox, as the console's client timed
//               it) and the console's own share; the logging itself costs a little
//   --traced    the latency section adds the sandbox-mode console once more, exporting its
//               traces over OTLP/HTTP to a receiver the bench starts, and rows of traced
//               against untraced (same rounds, interleaved); the hung-db section's instance
//               exports its traces too, and the slowest creates' spans are logged
//   --docs      write the results to docs/performance.md (a plain full run does by default;
//               a smoke run never does); --no-docs: leave it
//
// What the console costs, measured against what it stands in front of, in one run:
// builds the console (production, NEXT_DIST_DIR=.next-bench), starts it in sandbox mode on
// a fresh data folder (and in Postgres mode on a fresh database of the server named by
// BENCH_DATABASE_URL, else DATABASE_URL, else TEST_DATABASE_URL), starts the sandbox alone
// (npm run sandbox) as the direct baseline and a minimal Next.js app with a thin proxy to
// it, measures, prints a table, writes bench-results.json (git-ignored) and, in a full run,
// the table between the markers of docs/performance.md. --smoke is a tiny run of every
// measurement (part of npm test, so the benchmark cannot rot); its numbers mean nothing,
// and it writes no tracked file.
//
// Each measurement is its own module: latency.ts (1, 2), throughput.ts (3, 8), tokens.ts
// (4, 5), pages.ts (6, 7), startup.ts (8, 9), scale.ts (9, scale-out), shutdown.ts (10),
// hung-db.ts (11), events.ts (12: following orchestrations, the webhook), deposits.ts (12: a
// deposit made at the service, until the overview shows it), statements.ts (13: a 31-day
// statement over 10,000 movements, its CSV's memory), takeover.ts (12:
// the reader killed), push.ts (14: one stream per desk against polling), baseline.ts (the minimal Next.js app and the reference rows); memory.ts
// says how memory is read; fleet.ts starts the instances on Postgres of 10, 11 and 12.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import path from "node:path"
import { type MinimalApp, measureMinimalApp } from "./baseline"
import { type Bench, logLine } from "./context"
import { measureLatency } from "./latency"
import { EXECUTIONS_PACE_MS, type Phase, SCOPES, parseArgs, settingsFor } from "./options"
import { PAGE_WEIGHT_GROUP, measurePageSpeed, measurePageWeight } from "./pages"
import { type BaselineBuild, buildBaseline, startMinimalApp, versionOf } from "./page-weight"
import { benchPostgresServer, createBenchDatabase } from "./postgres"
import { type Server, cleanupAll, freePort, loadAverage, onCleanup, tempDir } from "./processes"
import { type SectionContext, printTable, resultsSection, tableMarkdown, writeResultsDoc, writesResultsDoc } from "./report"
import { buildConsole, freshBuild, repoRoot } from "./servers"
import { max, median, round } from "./stats"
import { type BenchClient, type ConsoleUnderTest, type DirectSandbox, startConsoleUnderTest, startDirectSandbox } from "./targets"
import { startOtlpReceiver } from "./otlp-receiver"
import { measureDeposits } from "./deposits"
import { measureEvents } from "./events"
import { measureStatements } from "./statements"
import { PUSH_FULL, PUSH_SMOKE, measurePush } from "./push"
import { TAKEOVER_FULL, TAKEOVER_SMOKE, takeoverSection } from "./takeover"
import { SCALE_FULL, SCALE_SMOKE, scaleSection } from "./scale"
import { HUNG_DB_FULL, HUNG_DB_SMOKE, hungDbSection } from "./hung-db"
import { SHUTDOWN_FULL, SHUTDOWN_SMOKE, shutdownSection } from "./shutdown"
import { measureStartup } from "./startup"
import { countConsoleTokens, measureTokensAndFanout } from "./tokens"
import { measureThroughput } from "./throughput"

/** The console's production build: reused when current (--no-build, or a smoke run after the e2e build), else built. */
async function consoleBuild(bench: Bench): Promise<string> {
  const { args } = bench
  let distDir = bench.distDir
  if (args.build === "never") {
    if (!freshBuild(distDir)) logLine(`--no-build: using ${distDir} as it is (older than the sources, or missing)`)
  } else if (args.build === "auto" && args.smoke && !args.dist) {
    // npm test builds for the e2e suite just before: reuse that build when it is current.
    const candidates = [process.env.NEXT_DIST_DIR || ".next", distDir]
    const fresh = candidates.find((d) => freshBuild(d))
    if (fresh) {
      distDir = fresh
      logLine(`using the current build in ${distDir}`)
    } else {
      logLine(`building into ${distDir} (next build)`)
      await buildConsole(distDir, path.join(bench.logDir, "build.log"))
    }
  } else {
    logLine(`building into ${distDir} (next build; a few minutes)`)
    const t = performance.now()
    await buildConsole(distDir, path.join(bench.logDir, "build.log"))
    logLine(`built in ${Math.round((performance.now() - t) / 1000)} s`)
  }
  return distDir
}

/** The commit measured: its short id, marked when tracked files had changes at the start. */
function commitMeasured(): string {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repoRoot, encoding: "utf8" }).trim()
  try {
    const id = `\`${git("rev-parse", "--short", "HEAD")}\``
    return git("status", "--porcelain", "--untracked-files=no") === "" ? id : `${id} (with uncommitted changes)`
  } catch {
    return "unknown (not a git checkout)"
  }
}

const RESULTS_DOC = path.join(repoRoot, "docs", "performance.md")

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const startedAt = new Date()
  const commit = commitMeasured()
  const loadSamples: number[] = []
  const loadTimer = setInterval(() => loadSamples.push(loadAverage()[0]), 5000)
  onCleanup(() => clearInterval(loadTimer))
  const logDir = path.join(tempDir("console-bench-"), "logs")
  mkdirSync(logDir, { recursive: true })
  const bench: Bench = {
    args,
    cfg: settingsFor(args),
    distDir: args.dist || process.env.BENCH_DIST_DIR || ".next-bench",
    logDir,
    rows: [],
    results: {},
    failures: [],
  }
  const { only } = args
  const loadAtStart = loadAverage()
  logLine(`${args.smoke ? "smoke run" : "full run"}; machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}`)
  if (!args.smoke && loadAtStart[0] > 1.5) {
    logLine(`note: load average ${loadAtStart.join(" ")} is high; numbers will be noisy (quiet machine: load < 1.5)`)
  }

  // -------------------------------------------------------------- builds
  // The minimal Next.js app serves the references: the thin proxy (latency) and the bare route.
  const needsMinimalApp = only.has("latency") || only.has("baseline")
  let baselineBuild: Promise<BaselineBuild> | null = null
  if (needsMinimalApp && args.smoke) baselineBuild = buildBaseline(logDir) // alongside, in a smoke run
  if (["latency", "throughput", "pages", "tokens", "startup", "scale", "shutdown", "events", "deposits", "statements", "takeover", "hung-db", "push"].some((p) => only.has(p as Phase))) {
    bench.distDir = await consoleBuild(bench)
  }
  if (needsMinimalApp && !baselineBuild) {
    logLine("building the minimal Next.js baseline app")
    baselineBuild = buildBaseline(logDir)
  }
  const minimalBuild = baselineBuild ? await baselineBuild : null

  // The sandbox's OAuth client, known to the bench (the same pair for every sandbox).
  const client: BenchClient = { clientId: "bench-client", clientSecret: randomBytes(24).toString("base64url") }
  const postgresServer = only.has("latency") || only.has("startup") ? benchPostgresServer() : null
  if (!postgresServer && (only.has("latency") || only.has("startup"))) {
    logLine("no BENCH_DATABASE_URL, DATABASE_URL or TEST_DATABASE_URL: the Postgres-mode rows are left out")
  }

  // -------------------------------------------------------------- the direct baseline: npm run sandbox
  let sandbox: DirectSandbox | null = null
  if (only.has("latency") || only.has("tokens") || only.has("events")) sandbox = await startDirectSandbox(bench, client)

  // -------------------------------------------------------------- the minimal Next.js app
  let minimal: MinimalApp | null = null
  let minimalServer: Server | null = null
  if (minimalBuild) {
    const port = await freePort(3500, 3599)
    logLine(`starting the minimal Next.js app on ${port}`)
    const proxyTo: Record<string, string> = sandbox
      ? { BENCH_SANDBOX_ORIGIN: sandbox.origin, BENCH_CLIENT_ID: client.clientId, BENCH_CLIENT_SECRET: client.clientSecret, BENCH_SCOPES: SCOPES.join(" ") }
      : {}
    const started = await startMinimalApp(minimalBuild, port, logDir, proxyTo)
    minimal = { origin: started.origin, build: minimalBuild }
    minimalServer = started.server
  }

  // What each section costs in wall time (a smoke run's cost is npm test's): logged, and in the results.
  const sectionSeconds: Record<string, number> = {}
  bench.results.sectionSeconds = sectionSeconds
  const timed = async (name: string, work: () => Promise<void>): Promise<void> => {
    const t = performance.now()
    await work()
    sectionSeconds[name] = Math.round((performance.now() - t) / 100) / 10
    logLine(`${name}: ${sectionSeconds[name]} s`)
  }

  // -------------------------------------------------------------- the console: sandbox mode, and Postgres mode
  if (only.has("latency") || only.has("throughput") || only.has("pages")) await timed("latency, throughput, pages", async () => {
    const app = await startConsoleUnderTest(bench, client)
    const onPostgres =
      only.has("latency") && postgresServer ? await startConsoleUnderTest(bench, client, { databaseUrl: await createBenchDatabase(postgresServer) }) : null
    // --traced: the same console once more, exporting its traces to a receiver of the bench's own.
    const receiver = only.has("latency") && args.traced ? await startOtlpReceiver() : null
    const traced = receiver
      ? await startConsoleUnderTest(bench, client, { name: "console-traced", label: "sandbox mode, traced", env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.origin } })
      : null
    bench.results.consolesAfterStart = [app, onPostgres, traced].flatMap((c) => (c ? [{ mode: c.label, startMs: c.startMs, rssMiB: c.rssAfterStartMiB }] : []))
    if (only.has("latency")) {
      if (!sandbox || !minimal) throw new Error("no sandbox or no minimal app")
      await measureLatency(bench, [app, onPostgres, traced].filter((c): c is ConsoleUnderTest => c !== null), sandbox, minimal.origin)
    }
    if (traced && receiver) {
      await traced.server.stop(20_000)
      const got = receiver.counts()
      logLine(`  the OTLP receiver got ${got.exports} exports, ${got.spans} spans from the traced console`)
      bench.results.tracedExports = got
      if (got.spans === 0) bench.failures.push("--traced: the traced console exported no span")
      await receiver.close()
    }
    if (only.has("throughput")) await measureThroughput(bench, app)
    if (only.has("pages")) {
      await measurePageWeight(bench, app)
      await measurePageSpeed(bench, app)
    }
    logLine("stopping the console")
    await onPostgres?.server.stop(20_000)
    await app.server.stop(20_000)
    await countConsoleTokens(bench, app, client)
  })

  if (only.has("startup")) await timed("startup", () => measureStartup(bench, client, postgresServer))

  if (only.has("tokens")) {
    if (!sandbox) throw new Error("no sandbox")
    await timed("tokens", () => measureTokensAndFanout(bench, sandbox, client))
  }

  // Events (e2e/perf/events.ts): service calls per settled orchestration, the event reader off and on.
  if (only.has("events")) {
    if (!sandbox) throw new Error("no sandbox")
    await timed("events", () => measureEvents(bench, sandbox, client))
  }

  // A wire deposit made at the service directly (e2e/perf/deposits.ts): until the overview shows it, the webhook on and off.
  if (only.has("deposits")) await timed("deposits", () => measureDeposits(bench, client))

  // A 31-day statement over 10,000 movements (e2e/perf/statements.ts): its JSON's time, its CSV's memory.
  if (only.has("statements")) await timed("statements", () => measureStatements(bench, client))

  // Push, not poll (e2e/perf/push.ts): open desks on one stream each against the polling it replaces.
  if (only.has("push")) await timed("push", () => measurePush(bench, client, args.smoke ? PUSH_SMOKE : { ...PUSH_FULL, desks: args.pushDesks ?? PUSH_FULL.desks }))

  // The sections that start their own servers share one context; each adds its settings.
  const shared = { distDir: bench.distDir, logDir, logLine, rows: bench.rows, results: bench.results, failures: bench.failures }
  const section = <S>(settings: S): SectionContext<S> => ({ ...shared, settings })

  // Scale-out (e2e/perf/scale.ts): three production instances on one Postgres.
  if (only.has("scale")) {
    await timed("scale", () => scaleSection(section(args.smoke ? SCALE_SMOKE : SCALE_FULL)))
  }

  // Graceful shutdown (e2e/perf/shutdown.ts): SIGTERM during a burst, two instances on one Postgres.
  if (only.has("shutdown")) {
    await timed("shutdown", () => shutdownSection(section(args.smoke ? SHUTDOWN_SMOKE : SHUTDOWN_FULL)))
  }

  // The event reader killed mid-stream (e2e/perf/takeover.ts): three instances on one Postgres (two in a smoke run).
  if (only.has("takeover")) {
    await timed("takeover", () => takeoverSection(section(args.smoke ? TAKEOVER_SMOKE : TAKEOVER_FULL)))
  }

  // The hung database (e2e/perf/hung-db.ts): console_intents locked while conversions come in.
  if (only.has("hung-db")) {
    await timed("hung-db", () => hungDbSection({ ...section(args.smoke ? HUNG_DB_SMOKE : HUNG_DB_FULL), traced: args.traced }))
  }

  if (only.has("baseline") && minimal) await measureMinimalApp(bench, minimal)
  await minimalServer?.stop()

  // -------------------------------------------------------------- report
  const { rows, results, failures, cfg } = bench
  const loadAtEnd = loadAverage()
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? "?",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAtStart,
    loadAtEnd,
    loadDuringRun: { median: round(median(loadSamples), 2), max: round(max(loadSamples), 2), samples: loadSamples.length },
  }
  const report = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    smoke: args.smoke,
    distDir: bench.distDir,
    machine,
    settings: { ...cfg, executionsPaceMs: EXECUTIONS_PACE_MS },
    rows,
    results,
    failures,
  }
  // Both git-ignored; a smoke run never overwrites the results of a full one.
  const resultsFile = args.smoke ? path.join(repoRoot, "test-results", "bench-smoke.json") : path.join(repoRoot, "bench-results.json")
  mkdirSync(path.dirname(resultsFile), { recursive: true })
  writeFileSync(resultsFile, JSON.stringify(report, null, 2) + "\n")
  process.stdout.write("\n" + printTable(rows) + "\n")
  process.stdout.write(
    `\nmachine: ${machine.cpus} × ${machine.model}, ${machine.memoryGiB} GiB, node ${machine.node}; load average at start ${loadAtStart.join(" ")}, during the run median ${machine.loadDuringRun.median} (max ${machine.loadDuringRun.max})\n`,
  )
  if (failures.length > 0) {
    process.stdout.write(`\nthe benchmark itself failed:\n${failures.map((f) => `  - ${f}`).join("\n")}\n`)
    process.exitCode = 1
  }
  const docs = path.relative(repoRoot, RESULTS_DOC)
  if (writesResultsDoc(args) && failures.length === 0) {
    const { latencyRounds, speedRounds, throughputRounds, tokenRounds, startRounds } = cfg
    writeResultsDoc(
      RESULTS_DOC,
      resultsSection(rows, {
        startedAt,
        finishedAt: new Date(report.finishedAt),
        commit,
        sections: [...only],
        machine: `${machine.cpus} × ${machine.model}, ${machine.memoryGiB} GiB`,
        software: `Node ${machine.node}, Next ${versionOf("next")}, React ${versionOf("react")}`,
        load: { atStart: loadAtStart[0], median: machine.loadDuringRun.median, max: machine.loadDuringRun.max },
        rounds:
          `Medians of ${latencyRounds} rounds (latency), ${speedRounds} (page speed), ${throughputRounds} (throughput), ` +
          `${tokenRounds} (tokens, quote fan-out), ${startRounds} (start-up); the scale-out, shutdown, hung-database and event rows are one round.`,
      }),
    )
    process.stdout.write(`\nthe table is written to ${docs}, between its bench markers\n`)
  } else {
    process.stdout.write(`\n${docs} is left as it is (${args.smoke ? "a smoke run" : failures.length > 0 ? "the run failed" : "--docs writes it"}); the table in markdown:\n\n${tableMarkdown(rows)}\n`)
  }
  if (args.smoke) {
    const empty = rows.filter((r) => /NaN|undefined/.test(`${r.console} ${r.baseline} ${r.value}`))
    if (empty.length > 0) {
      process.stdout.write(`\nsmoke: measurements without a number: ${empty.map((r) => `${r.group} ${r.what}`).join("; ")}\n`)
      process.exitCode = 1
    }
    // A page's weight is bytes of the build, the same on any machine: judged in a smoke run
    // too, so npm test stops a page that grows past its goal.
    const heavy = rows.filter((r) => r.group === PAGE_WEIGHT_GROUP && r.goal.startsWith("≤") && !r.ok)
    if (heavy.length > 0) {
      process.stdout.write(`\nsmoke: over its first-load JS goal: ${heavy.map((r) => `${r.what} ${r.console} (goal ${r.goal})`).join("; ")}\n`)
      process.exitCode = 1
    }
  }
}

let stopping = false
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    process.stderr.write(`\n${signal}: stopping everything the benchmark started\n`)
    void cleanupAll().finally(() => process.exit(130))
  })
}

main()
  .catch((error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  })
  .finally(() => cleanupAll())

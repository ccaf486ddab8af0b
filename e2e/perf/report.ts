// The results table: printed for the terminal, and as markdown between the markers of
// docs/performance.md (the only file a benchmark run writes in the repository, apart from
// the git-ignored bench-results.json).
import { readFileSync, writeFileSync } from "node:fs"
import { replaceBetweenMarkers } from "../../scripts/doc-markers"
import type { Args } from "./options"

export interface Row {
  group: string
  what: string
  /** The console's figure. */
  console: string
  /** The direct baseline's figure, when there is one. */
  baseline: string
  /** Ratio, errors or a detail. */
  value: string
  goal: string
  ok: boolean
}

/**
 * What a bench section that starts its own servers (scale, shutdown, takeover, hung-db) is
 * handed: the build, where logs go, its settings (smoke or full), how it logs, and where its
 * rows, results and failures go. bench.ts builds it once per run, `settings` per section.
 */
export interface SectionContext<S> {
  /** The console's production build (NEXT_DIST_DIR). */
  distDir: string
  /** Server logs of this run. */
  logDir: string
  settings: S
  logLine: (text: string) => void
  /** The table. */
  rows: Row[]
  /** Everything measured, for bench-results.json. */
  results: Record<string, unknown>
  /** The benchmark itself went wrong: the run fails. */
  failures: string[]
}

const HEAD = ["measurement", "console", "direct / baseline", "ratio / detail", "goal", ""] as const

/** Numbered groups in order ("1. …" to "8. …"), then the references; rows keep their order within a group. */
function ordered(rows: readonly Row[]): Row[] {
  const rank = (r: Row) => Number(/^(\d+)\./.exec(r.group)?.[1] ?? 99)
  return rows.map((r, i) => ({ r, i })).sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i).map((x) => x.r)
}

function cells(rows: readonly Row[]): string[][] {
  const out: string[][] = []
  let group = ""
  for (const r of ordered(rows)) {
    if (r.group !== group) {
      group = r.group
      out.push([`**${group}**`, "", "", "", "", ""])
    }
    out.push([r.what, r.console, r.baseline, r.value, r.goal, r.goal === "report" || r.goal === "baseline" ? "" : r.ok ? "met" : "MISSED"])
  }
  return out
}

export function tableMarkdown(rows: readonly Row[]): string {
  const lines = [`| ${HEAD.join(" | ")} |`, `|${HEAD.map(() => "---").join("|")}|`]
  for (const c of cells(rows)) lines.push(`| ${c.map((x) => x.replace(/\|/g, "\\|")).join(" | ")} |`)
  return lines.join("\n")
}

export function printTable(rows: readonly Row[]): string {
  const body = cells(rows).map((c) => c.map((x) => x.replace(/\*\*/g, "")))
  const all = [[...HEAD], ...body]
  const widths = HEAD.map((_, i) => Math.min(70, Math.max(...all.map((r) => (r[i] ?? "").length))))
  const line = (r: string[]) => r.map((x, i) => x.padEnd(widths[i] ?? 0)).join("  ").trimEnd()
  return [line(all[0] ?? []), widths.map((w) => "-".repeat(w)).join("  "), ...body.map(line)].join("\n")
}

/**
 * Whether this run rewrites the results in docs/performance.md. A smoke run never does: it
 * is part of npm test, where it must leave the tree clean, and its numbers mean nothing. A
 * plain full run does; a partial or perturbed one (--only, --rounds, --cpu-prof,
 * --explain) only when given --docs; --no-docs keeps the file as it is.
 */
export function writesResultsDoc(args: Pick<Args, "smoke" | "docs" | "onlySome" | "rounds" | "cpuProf" | "explain">): boolean {
  if (args.smoke || args.docs === "skip") return false
  if (args.docs === "write") return true
  return !args.onlySome && !args.rounds && !args.cpuProf && !args.explain
}

export interface RunInfo {
  startedAt: Date
  finishedAt: Date
  /** Short commit id, marked when the tree had uncommitted changes at the start. */
  commit: string
  sections: readonly string[]
  /** CPUs and memory. */
  machine: string
  /** Node, Next and React versions. */
  software: string
  load: { atStart: number; median: number; max: number }
  /** How many rounds each figure is the median of. */
  rounds: string
}

/** What goes between the bench markers: when, where and on what the table was measured, then the table. */
export function resultsSection(rows: readonly Row[], run: RunInfo): string {
  const hhmm = (d: Date) => d.toISOString().slice(11, 16)
  return [
    "<!-- written by npm run bench (e2e/perf/bench.ts); the text around the markers is not -->",
    `Run of ${run.startedAt.toISOString().slice(0, 10)}, ${hhmm(run.startedAt)} to ${hhmm(run.finishedAt)} UTC, commit ${run.commit}; ` +
      `sections: ${run.sections.join(", ")}. ${run.machine}; ${run.software}; load average ${run.load.atStart} at the start, ` +
      `median ${run.load.median} during the run (max ${run.load.max}). ${run.rounds}`,
    "",
    tableMarkdown(rows),
  ].join("\n")
}

/** Replaces the results between `<!-- bench:begin -->` and `<!-- bench:end -->` of `file`, and nothing else. */
export function writeResultsDoc(file: string, section: string): void {
  writeFileSync(file, replaceBetweenMarkers(readFileSync(file, "utf8"), "bench", section))
}

// The results table: printed for the terminal and as markdown for the README.

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

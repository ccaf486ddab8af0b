import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { describe, expect, it } from "vitest"
import { parseArgs } from "../e2e/perf/options"
import { type Row, resultsSection, writeResultsDoc, writesResultsDoc } from "../e2e/perf/report"
import { markers } from "../scripts/doc-markers"

const doc = path.resolve(import.meta.dirname, "../docs/performance.md")

describe("npm run bench writes its results to docs/performance.md, and only there", () => {
  it("a plain full run writes them; a smoke run never; --only and the like only with --docs", () => {
    expect(writesResultsDoc(parseArgs([]))).toBe(true)
    expect(writesResultsDoc(parseArgs(["--smoke"]))).toBe(false)
    expect(() => parseArgs(["--smoke", "--docs"])).toThrow("a smoke run never writes docs/performance.md")
    expect(writesResultsDoc(parseArgs(["--only", "scale"]))).toBe(false)
    expect(writesResultsDoc(parseArgs(["--only", "scale", "--docs"]))).toBe(true)
    expect(writesResultsDoc(parseArgs(["--explain"]))).toBe(false)
    expect(writesResultsDoc(parseArgs(["--no-docs"]))).toBe(false)
  })

  it("replaces what lies between the markers and nothing around them", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "bench-docs-"))
    try {
      const copy = path.join(dir, "performance.md")
      copyFileSync(doc, copy)
      const before = readFileSync(copy, "utf8")
      const row: Row = { group: "1. proxy overhead, write (POST execution)", what: "p50", console: "19.7 ms", baseline: "12.1 ms", value: "× 1.61", goal: "≤ 1.5", ok: false }
      const at = new Date("2027-01-02T03:04:00Z")
      writeResultsDoc(copy, resultsSection([row], {
        startedAt: at,
        finishedAt: new Date("2027-01-02T03:30:00Z"),
        commit: "`abc1234`",
        sections: ["latency"],
        machine: "2 × test CPU, 24 GiB",
        software: "Node v20, Next 16, React 19",
        load: { atStart: 0.5, median: 0.7, max: 1.2 },
        rounds: "Medians of 5 rounds.",
      }))
      const after = readFileSync(copy, "utf8")
      const { begin, end } = markers("bench")
      const outside = (text: string) => [text.slice(0, text.indexOf(begin)), text.slice(text.indexOf(end))]
      expect(outside(after)).toEqual(outside(before))
      expect(after).toContain("Run of 2027-01-02, 03:04 to 03:30 UTC, commit `abc1234`; sections: latency.")
      expect(after).toContain("| p50 | 19.7 ms | 12.1 ms | × 1.61 | ≤ 1.5 | MISSED |")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

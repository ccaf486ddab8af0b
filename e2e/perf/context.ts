// What every measurement shares: the settings, where it logs, and where its rows,
// results and failures go.
import type { Args, Settings } from "./options"
import { loadAverage } from "./processes"
import type { Row } from "./report"

export interface Bench {
  args: Args
  cfg: Settings
  /** The console's production build (NEXT_DIST_DIR). */
  distDir: string
  /** Server logs and build logs of this run. */
  logDir: string
  /** The table. */
  rows: Row[]
  /** Everything measured, round by round, for bench-results.json. */
  results: Record<string, unknown>
  /** The benchmark itself went wrong (errors under load, a missing server): the run fails. */
  failures: string[]
}

export function logLine(text: string): void {
  process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)} load ${loadAverage()[0].toFixed(2)}] ${text}\n`)
}

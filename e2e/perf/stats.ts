// Percentiles (nearest rank) and medians of rounds.

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN
}

export function median(values: readonly number[]): number {
  const finite = values.filter((v) => Number.isFinite(v))
  if (finite.length === 0) return Number.NaN
  const sorted = [...finite].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
}

export function max(values: readonly number[]): number {
  // A loop, not Math.max(...values): a long run's latencies would overflow the call's arguments.
  return values.length === 0 ? Number.NaN : values.reduce((a, b) => (b > a ? b : a), Number.NEGATIVE_INFINITY)
}

export function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

export function round(value: number, digits = 1): number {
  if (!Number.isFinite(value)) return value
  const f = 10 ** digits
  return Math.round(value * f) / f
}

/** Cumulative layout shift as web-vitals defines it: the worst session window (gap < 1 s, span ≤ 5 s). */
export function cumulativeLayoutShift(shifts: readonly { t: number; v: number }[]): number {
  let worst = 0
  let current = 0
  let first = Number.NEGATIVE_INFINITY
  let last = Number.NEGATIVE_INFINITY
  for (const s of [...shifts].sort((a, b) => a.t - b.t)) {
    if (s.t - last < 1000 && s.t - first < 5000) {
      current += s.v
    } else {
      current = s.v
      first = s.t
    }
    last = s.t
    worst = Math.max(worst, current)
  }
  return worst
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The most arrivals within any 1,000 ms (sliding window). */
export function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 1000) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

/** A market's 24 h trend line in the price grid: its box, the same before and after it loads. */
export const TREND_SIZE = { width: 72, height: 20 } as const

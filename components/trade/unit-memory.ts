import type { AmountMode } from "@/components/trade/execute-model"

/**
 * The unit the trader last typed an amount in, per market, in localStorage: the ticket
 * opens in it again (after a reload too), so "250" means what it meant last time on that
 * market, and the review shows both amounts anyway.
 */
export const UNIT_KEY = "console.trade.units"

function read(storage: Pick<Storage, "getItem">): Record<string, AmountMode> {
  try {
    const parsed: unknown = JSON.parse(storage.getItem(UNIT_KEY) ?? "{}")
    if (!parsed || typeof parsed !== "object") return {}
    return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, AmountMode] => e[1] === "crypto" || e[1] === "fiat"))
  } catch {
    return {}
  }
}

function storage(): Storage | null {
  try {
    return typeof window === "undefined" ? null : window.localStorage
  } catch {
    return null
  }
}

export function rememberedUnit(market: string, from: Pick<Storage, "getItem"> | null = storage()): AmountMode {
  return (from && read(from)[market]) || "crypto"
}

export function rememberUnit(market: string, mode: AmountMode, to: Pick<Storage, "getItem" | "setItem"> | null = storage()): void {
  if (!to) return
  try {
    to.setItem(UNIT_KEY, JSON.stringify({ ...read(to), [market]: mode }))
  } catch {
    // A full or blocked storage only loses the preference.
  }
}

/** Fiat currencies the service quotes markets in. */
export const FIAT_ASSETS = ["USD", "EUR", "SGD"] as const
/** Stablecoins that convert 1:1 against USD. */
export const STABLECOINS = ["USDP", "PYUSD", "USDG"] as const
export type Stablecoin = (typeof STABLECOINS)[number]

/** The markets of the service interface; the sandbox serves exactly these. */
export const SEED_MARKETS = [
  "ETHEUR",
  "ETHSGD",
  "ETHUSD",
  "BTCEUR",
  "BTCSGD",
  "BTCUSD",
  "PAXGUSD",
  "BCHUSD",
  "LTCUSD",
  "USDPUSD",
  "LINKUSD",
  "MATICUSD",
  "AAVEUSD",
  "UNIUSD",
] as const

const MARKET = /^([A-Z0-9]{2,12})(USD|EUR|SGD)$/

/** Splits any `<BASE><QUOTE>` market the service returns; null when it is not one. */
export function parseMarket(market: string): { base: string; quote: string } | null {
  const match = MARKET.exec(market)
  if (!match?.[1] || !match[2]) return null
  return { base: match[1], quote: match[2] }
}

export function isFiat(asset: string): boolean {
  return (FIAT_ASSETS as readonly string[]).includes(asset)
}

/** Decimals an amount of this asset may carry: 2 for fiat, 8 for crypto and stablecoins on exchange. */
export function assetDecimals(asset: string): number {
  return isFiat(asset) ? 2 : 8
}

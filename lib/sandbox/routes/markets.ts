import "server-only"
import { HISTORICAL_PRICES_SCOPE } from "@/lib/schemas/scopes"
import { MarketData } from "@/lib/sandbox/markets"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { listParam } from "@/lib/sandbox/validation"

/** Paths below /v2 the service answers without a token: List Markets, the tickers, List Prices. */
export const PUBLIC_MARKET_PATHS: readonly RegExp[] = [/^\/markets\/?$/, /^\/markets\/[^/]+\/ticker\/?$/, /^\/all-markets\/ticker\/?$/, /^\/all-markets\/prices\/?$/]

/**
 * /sandbox/v2/markets and /sandbox/v2/all-markets: the service's market data. List
 * Historical Prices asks for a token with scope `exchange:historical_prices`; the others
 * are public, as at the service (no token needed; a token sent is not checked).
 */
export function marketRoutes(s: SandboxServices, m: Middleware) {
  const data = new MarketData(s.quotes, s.now, async () => (await s.settings.get()).seed)
  return (
    router()
      // GET /sandbox/v2/markets - the markets and their tick
      .get("/markets", (c) => json(c, data.markets()))
      // GET /sandbox/v2/markets/{market}/ticker - best bid and ask, last day and today
      .get("/markets/:market/ticker", async (c) => json(c, await data.ticker(c.req.param("market"))))
      // GET /sandbox/v2/markets/{market}/historical-prices - average prices per increment, ascending
      .get("/markets/:market/historical-prices", m.scope(HISTORICAL_PRICES_SCOPE), async (c) => {
        const query = data.parseHistoryQuery(c.req.param("market"), new URL(c.req.url))
        return json(c, await data.history(query))
      })
      // GET /sandbox/v2/all-markets/ticker - every market's ticker
      .get("/all-markets/ticker", async (c) => json(c, await data.tickers()))
      // GET /sandbox/v2/all-markets/prices?markets=BTCUSD&markets=ETHUSD - current and 24 h ago
      .get("/all-markets/prices", async (c) => json(c, await data.prices(listParam(new URL(c.req.url), "markets"))))
  )
}

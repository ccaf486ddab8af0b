import "server-only"
import { badRequest } from "@/lib/sandbox/problems"
import { wireQuote } from "@/lib/sandbox/format"
import { SANDBOX_MARKETS, isSandboxMarket } from "@/lib/sandbox/pricing"
import { type Middleware, type SandboxServices, json, router } from "@/lib/sandbox/routes/context"
import { listParam } from "@/lib/sandbox/validation"

/** /sandbox/v2/quotes */
export function quoteRoutes(s: SandboxServices, m: Middleware) {
  // GET /sandbox/v2/quotes - the current held quotes (BUY and SELL) of the asked markets
  return router().get("/", m.scope("exchange:read_quote"), m.fault("quotes"), async (c) => {
    const asked = listParam(new URL(c.req.url), "markets")
    const unknown = asked.filter((market) => !isSandboxMarket(market))
    if (unknown.length > 0) {
      throw badRequest({ markets: `unknown market ${unknown.join(", ")}; markets are ${SANDBOX_MARKETS.join(", ")}` })
    }
    const markets = asked.length > 0 ? [...new Set(asked)] : [...SANDBOX_MARKETS]
    return json(c, { items: (await s.quotes.current(markets)).map(wireQuote) })
  })
}

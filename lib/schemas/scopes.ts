/**
 * The service's OAuth scopes, written once: the console asks for these, the embedded
 * sandbox grants them, and the tests and the bench use them. No imports, so any script
 * can read it.
 */

/** One scope per kind of call the console makes to the service. */
export const UPSTREAM_SCOPES = [
  "exchange:read_quote",
  "exchange:write_quote_execution",
  "exchange:read_quote_execution",
  "conversion:write_conversion_stablecoin",
  "conversion:read_conversion_stablecoin",
  "funding:read_profile",
  "exchange:historical_prices",
] as const

/** List Historical Prices needs this scope; the other market-data operations need only a token. */
export const HISTORICAL_PRICES_SCOPE = "exchange:historical_prices"

/** The embedded sandbox's admin API (fault rules, settings); the console gets a token of its own for it. */
export const SANDBOX_ADMIN_SCOPE = "sandbox:admin"

/** Every scope the embedded sandbox grants its clients. */
export const SANDBOX_SCOPES: readonly string[] = [...UPSTREAM_SCOPES, SANDBOX_ADMIN_SCOPE]

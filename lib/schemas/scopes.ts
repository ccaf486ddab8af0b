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
  // The Transfers API: every movement of the profiles' funds (the /transfers page, search).
  "transfer:read_transfer",
] as const

/**
 * The scopes of the service's Orchestrations API, which replaces its stablecoin
 * conversions: asked for instead of the two conversion scopes when the console's
 * conversions desk uses it.
 */
export const ORCHESTRATION_SCOPES = ["orchestration:read_orchestration", "orchestration:write_orchestration"] as const

/** The console's event reader (lib/console/event-reader.ts) reads GET /v2/events with the console's one token. */
export const EVENT_READER_SCOPES = ["events:read_event"] as const

const STABLECOIN_CONVERSION_SCOPES: readonly string[] = ["conversion:write_conversion_stablecoin", "conversion:read_conversion_stablecoin"]

/**
 * The scopes the console needs with the given conversion API: the orchestration pair
 * replaces the conversion pair when the desk uses Orchestrations; `both` for a console
 * that may switch between them (the embedded sandbox grants every scope).
 */
export function scopesFor(api: "stablecoin-conversions" | "orchestrations" | "both"): string[] {
  const base = UPSTREAM_SCOPES.filter((s) => !STABLECOIN_CONVERSION_SCOPES.includes(s))
  if (api === "stablecoin-conversions") return [...UPSTREAM_SCOPES, ...EVENT_READER_SCOPES]
  if (api === "orchestrations") return [...base, ...ORCHESTRATION_SCOPES, ...EVENT_READER_SCOPES]
  return [...UPSTREAM_SCOPES, ...ORCHESTRATION_SCOPES, ...EVENT_READER_SCOPES]
}


/** List Historical Prices needs this scope; the other market-data operations need only a token. */
export const HISTORICAL_PRICES_SCOPE = "exchange:historical_prices"

/** The embedded sandbox's admin API (fault rules, settings); the console gets a token of its own for it. */
export const SANDBOX_ADMIN_SCOPE = "sandbox:admin"

/**
 * The service's Events and Transfers APIs (`GET /v2/events`, `GET /v2/transfer/transfers`)
 * and its sandbox fiat deposit (`POST /v2/sandbox/fiat-deposits`).
 */
export const EVENT_TRANSFER_SCOPES = ["events:read_event", "transfer:read_transfer", "transfer:write_sandbox_fiat_deposit"] as const

/** Every scope the embedded sandbox grants its clients. */
export const SANDBOX_SCOPES: readonly string[] = [...new Set([...UPSTREAM_SCOPES, ...ORCHESTRATION_SCOPES, ...EVENT_TRANSFER_SCOPES, SANDBOX_ADMIN_SCOPE])]

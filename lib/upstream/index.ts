import "server-only"

/**
 * The server-only typed client of the trading and stablecoin-conversion service (its
 * conversions through either of its conversion APIs).
 * The console wires configuration into `createUpstreamClient`; nothing here reads env.
 */
export { type ApiContext } from "@/lib/upstream/api-context"
export { createUpstreamClient, type UpstreamClientConfig } from "@/lib/upstream/client"
export {
  type ConversionCreateInput,
  type ConversionOperations,
  type CreateResult,
  type HistoricalPricesQuery,
  type MarketDataOperations,
  type ProfileListQuery,
  type ProfileOperations,
  type ProfilePage,
  type QuoteExecutionCreateInput,
  type QuoteExecutionOperations,
  type QuoteOperations,
  type SandboxOperations,
  type TransferOperations,
  type UpstreamClient,
} from "@/lib/upstream/operations"
export {
  type EventListFilter,
  type EventOperations,
  type ServiceEvent,
  type ServiceEventPage,
  serviceEventSchema,
} from "@/lib/upstream/events"
export { createStablecoinConversionAdapter } from "@/lib/upstream/stablecoin-conversions"
export * from "@/lib/upstream/errors"
export { isSameConversion, isSameQuoteExecution } from "@/lib/upstream/matching"
export { createOrchestrationAdapter, orchestrationToConversion } from "@/lib/upstream/orchestrations"
export { TRANSFER_PAGE_MAX, type TransferListFilters, getTransfer, listTransfers } from "@/lib/upstream/transfers"
export { type ProblemAnswer, upstreamErrorToProblem } from "@/lib/upstream/problem"
export {
  DEFAULT_RATE_LIMITS,
  type Limiter,
  limitOf,
  type RateLimitBucket,
  RateLimiter,
  type RateLimits,
  instanceShare,
} from "@/lib/upstream/rate-limiter"
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from "@/lib/upstream/request"
export type { RequestTimer, UpstreamFetch, UpstreamLogEvent } from "@/lib/upstream/transport"

import "server-only"
import type { z } from "zod"
import type { ConversionCreate, ConversionListQuery } from "@/lib/schemas/conversion"
import type { QuoteExecutionCreate, QuoteExecutionListQuery } from "@/lib/schemas/quote-execution"
import type { Balance, Conversion, ConversionPage, Profile, Quote, QuoteExecution, QuoteExecutionPage, profilePageSchema } from "@/lib/schemas/records"
import type { FaultSettingsUpdate, SandboxDeposit, SandboxDepositResponse, SandboxSettings } from "@/lib/schemas/sandbox-tools"
import type { ConversionsApi } from "@/lib/schemas/constants"
import type { SilentMovement, SilentMovementAnswer } from "@/lib/schemas/silent-movement"
import type { HistoryRequest, SandboxHistoryAnswer } from "@/lib/schemas/sandbox-history"
import type { LostRecord, LostRecordAnswer } from "@/lib/schemas/lost-record"
import type { Transfer, TransferPage } from "@/lib/schemas/transfer"
import type { TransferListFilters } from "@/lib/upstream/transfers"
import type { HistoricalPrice, HistoryIncrement, MarketPrice, Ticker } from "@/lib/schemas/market-data"
import type { EventOperations } from "@/lib/upstream/events"

/** What the service client offers, call by call, in the console's own shapes. */

/** Every create names its ref_id: the only thing that makes a retry safe. */
export type QuoteExecutionCreateInput = QuoteExecutionCreate & { ref_id: string }
export type ConversionCreateInput = ConversionCreate & { ref_id: string }

export interface CreateResult<T> {
  record: T
  /** The service already had this record (409 Already Exists naming the same request). */
  replayed: boolean
  /** HTTP attempts the create took, 1 to 3. */
  attempts: number
}

export type ProfilePage = z.infer<typeof profilePageSchema>
export interface ProfileListQuery {
  limit?: number | undefined
  page_cursor?: string | undefined
}

export interface QuoteOperations {
  /** Held quotes for each market, both sides; no markets: every market (the service's default). */
  listQuotes(markets: readonly string[]): Promise<Quote[]>
}

export interface ProfileOperations {
  listProfiles(query?: ProfileListQuery): Promise<ProfilePage>
  getProfile(profileId: string): Promise<Profile>
  listBalances(profileId: string, assets?: readonly string[]): Promise<Balance[]>
}

export interface QuoteExecutionOperations {
  createQuoteExecution(profileId: string, body: QuoteExecutionCreateInput): Promise<CreateResult<QuoteExecution>>
  getQuoteExecution(profileId: string, id: string): Promise<QuoteExecution>
  listQuoteExecutions(profileId: string, query?: QuoteExecutionListQuery): Promise<QuoteExecutionPage>
}

/**
 * Stablecoin conversions. An interface of its own because the service replaces this API
 * with /v2/orchestration/orchestrations: a second adapter can implement the same calls.
 */
export interface ConversionOperations {
  createConversion(body: ConversionCreateInput): Promise<CreateResult<Conversion>>
  getConversion(id: string): Promise<Conversion>
  listConversions(query?: ConversionListQuery): Promise<ConversionPage>
  /** Not retried: a second DELETE after a lost answer would only meet a 409. */
  cancelConversion(id: string): Promise<Conversion>
}

/** The service's Transfers API: every movement of a profile's funds (read only). */
export interface TransferOperations {
  listTransfers(filters?: TransferListFilters): Promise<TransferPage>
  getTransfer(id: string): Promise<Transfer>
}

export interface SandboxOperations {
  /** Sandbox only: funds a profile. Not retried (it carries no ref_id). */
  sandboxDeposit(profileId: string, input: Pick<SandboxDeposit, "asset" | "amount">): Promise<SandboxDepositResponse>
  /** Sandbox only: the fault "move a balance without a record" (POST /sandbox/admin/silent-movements). Not retried. */
  sandboxSilentMovement(input: SilentMovement): Promise<SilentMovementAnswer>
  /** Sandbox only: the fault "lose a record" (POST /sandbox/admin/lost-records). Not retried. */
  sandboxLoseRecord(input: LostRecord): Promise<LostRecordAnswer>
  /** Sandbox only: "generate a past week" (POST /sandbox/admin/history); 409 once the sandbox has a past. Not retried. */
  sandboxHistory(input: HistoryRequest): Promise<SandboxHistoryAnswer>
  getFaults(): Promise<SandboxSettings>
  /** Fields left out keep their current value; `{"rules": []}` clears every fault. */
  putFaults(body: FaultSettingsUpdate): Promise<SandboxSettings>
}

export interface HistoricalPricesQuery {
  /** Exactly one of `increment` and `maxDataPoints`. */
  increment?: HistoryIncrement | undefined
  maxDataPoints?: number | undefined
  begin?: Date | undefined
  end?: Date | undefined
  /** At most 1,000 (the service's maximum); 100 when left out. */
  limit?: number | undefined
  offset?: number | undefined
}

export interface MarketDataOperations {
  listMarkets(): Promise<{ market: string; base_asset: string; quote_asset: string; tick_rate: string }[]>
  getTicker(market: string): Promise<Ticker>
  listTickers(): Promise<Ticker[]>
  /** Current and 24-hours-ago prices of USD markets. */
  listPrices(markets: readonly string[]): Promise<MarketPrice[]>
  listHistoricalPrices(market: string, query: HistoricalPricesQuery): Promise<{ total_count: number; items: HistoricalPrice[] }>
}

/**
 * The client. Its conversion calls go to the conversion API in use when they are made;
 * `conversionsVia` reaches one API whatever is in use (a record is looked up through the
 * API that placed it).
 */
export interface UpstreamClient
  extends MarketDataOperations,
    QuoteOperations,
    ProfileOperations,
    QuoteExecutionOperations,
    ConversionOperations,
    EventOperations,
    TransferOperations,
    SandboxOperations {
  conversionsApi(): Promise<ConversionsApi>
  conversionsVia(api: ConversionsApi): ConversionOperations
  /** Resolves once the client holds a token for its scopes (the cached one, or a new one). */
  ensureToken(): Promise<void>
}

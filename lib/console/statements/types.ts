import type { Decimal } from "@/lib/money"

/**
 * The statement's inputs and output. Inputs carry `Decimal`s (parsed once from the
 * service's strings); the output is what crosses the wire: decimal strings only.
 */

export type MovementKind = "execution" | "conversion" | "orchestration" | "transfer" | "deposit" | "withdrawal"

/** One asset's side of a record: what it added to or took from the profile's balance. */
export interface Leg {
  asset: string
  direction: "CREDIT" | "DEBIT"
  amount: Decimal
  /** Charged on top of a debit, taken out of a credit; zero where the record has none. */
  fee: Decimal
}

/** A record of the service (and who placed it through the console), as a statement reads it. */
export interface SourceRecord {
  id: string
  kind: MovementKind
  /** "Buy BTCUSD", "Wire deposit", "Conversion USD → USDP". */
  label: string
  /** The record's page in the console. */
  href: string
  refId: string | null
  /** The staff member who placed it through the console; null: placed elsewhere (or not a thing anyone places, a deposit). */
  placedBy: string | null
  status: string
  createdAt: Date
  /** When its legs moved the balance (settled, completed); null when they have not (pending) or never will (cancelled, failed). */
  movedAt: Date | null
  /** Still pending at the service: it may move the balance later. */
  open: boolean
  legs: Leg[]
  /** A quote execution's market, side and amounts: the per-market volumes. */
  trade?: { market: string; side: "BUY" | "SELL"; base: Decimal; quote: Decimal; baseAsset: string; quoteAsset: string; price?: Decimal | undefined }
}

/** Balances observed at one moment: a stored snapshot or the service's answer now. Totals (available + trading) per asset. */
export interface Anchor {
  at: Date
  source: "snapshot" | "now"
  /** The UTC cutoff a scheduled snapshot stands for; null for one taken now. */
  cutoff: Date | null
  balances: ReadonlyMap<string, Decimal>
}

export interface StatementInput {
  profileId: string
  /** [from, to): UTC. */
  from: Date
  to: Date
  records: readonly SourceRecord[]
  /** Every observation of the profile's balances the statement may use, any order. */
  anchors: readonly Anchor[]
  /** The opening is a cutoff's snapshot (not worked back from a later observation). */
  openingObserved: boolean
  /** The closing is a cutoff's snapshot, or the service's balance now for a period that has not ended. */
  closingObserved: boolean
}

export type Basis = "observed" | "reconstructed"

export interface AssetSummary {
  asset: string
  opening: string
  credits: string
  debits: string
  fees: string
  closing: string
  /** closing − (opening + credits − debits − fees); "0…" when it ties. */
  difference: string
  /** "ties_out": both ends observed and no difference; "difference": both observed, and it does not; "not_claimed": an end is reconstructed. */
  tie_out: "ties_out" | "difference" | "not_claimed"
}

/** A balance change no record explains, narrowed to the two observations around it. */
export interface Unexplained {
  asset: string
  /** Signed: what the balance moved by beyond the records. */
  amount: string
  from: string
  to: string
}

export interface StatementLeg {
  asset: string
  direction: "CREDIT" | "DEBIT"
  amount: string
  fee: string
  /** amount + fee for a debit, amount − fee for a credit: what the balance moved by. */
  total: string
  /** The asset's balance after this leg. */
  balance: string
}

export interface StatementMovement {
  id: string
  kind: MovementKind
  label: string
  href: string
  ref_id: string | null
  /** The staff member's email, or null: "placed elsewhere". */
  placed_by: string | null
  at: string
  legs: StatementLeg[]
  /** A quote execution's market, side, price and amounts (the service's Profile Transactions report carries them); null for other records. */
  trade: { market: string; side: "BUY" | "SELL"; price: string | null; base_amount: string; quote_amount: string } | null
}

export interface StatementInFlight {
  id: string
  kind: MovementKind
  label: string
  href: string
  ref_id: string | null
  status: string
  created_at: string
  /** When it moved, if it moved after the cutoff; null while still pending. */
  moved_at: string | null
}

export interface MarketSummary {
  market: string
  side: "BUY" | "SELL"
  count: number
  base_asset: string
  quote_asset: string
  base_volume: string
  quote_volume: string
  /** quote volume ÷ base volume. */
  vwap: string
}

export interface Statement {
  profile_id: string
  from: string
  to: string
  opening_basis: Basis
  closing_basis: Basis
  /** When the observations used were made (the opening's and the closing's first). */
  opening_observed_at: string | null
  closing_observed_at: string | null
  /** "ties_out" only when both ends are observed and every asset ties to its last decimal. */
  tie_out: "ties_out" | "difference" | "not_claimed"
  assets: AssetSummary[]
  unexplained: Unexplained[]
  movements: StatementMovement[]
  in_flight: StatementInFlight[]
  markets: MarketSummary[]
}

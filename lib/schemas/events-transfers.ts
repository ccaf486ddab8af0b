import { z } from "zod"
import { dateTimeFilterSchema, limitSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"

/**
 * The service's Events and Transfers APIs (/v2/events, /v2/transfer/transfers) and its
 * sandbox fiat deposit, written from its OpenAPI file (paxos-v2-events-transfers): the
 * queries the embedded sandbox takes. Client safe.
 */

/** The scopes of these APIs (all three are in EVENT_TRANSFER_SCOPES, lib/schemas/scopes.ts). */
export const EVENTS_SCOPE = "events:read_event"
export const TRANSFERS_SCOPE = "transfer:read_transfer"
export const SANDBOX_FIAT_DEPOSIT_SCOPE = "transfer:write_sandbox_fiat_deposit"

// The transfer types and statuses live in a module without zod, for the pages.
export { TRANSFER_STATUS_VALUES, TRANSFER_TYPES } from "@/lib/schemas/transfer-constants"

const dateTimeFilter = dateTimeFilterSchema.optional()
const createdAtBounds = {
  "created_at.lt": dateTimeFilter,
  "created_at.lte": dateTimeFilter,
  "created_at.eq": dateTimeFilter,
  "created_at.gte": dateTimeFilter,
  "created_at.gt": dateTimeFilter,
}
const updatedAtBounds = {
  "updated_at.lt": dateTimeFilter,
  "updated_at.lte": dateTimeFilter,
  "updated_at.eq": dateTimeFilter,
  "updated_at.gte": dateTimeFilter,
  "updated_at.gt": dateTimeFilter,
}
export const TIME_BOUNDS = ["lt", "lte", "eq", "gte", "gt"] as const
export type TimeBound = (typeof TIME_BOUNDS)[number]

/** GET /v2/events: ascending by default; `is_test` false by default (real events only). */
export const eventListQuerySchema = z.strictObject({
  ...createdAtBounds,
  type: z.string().max(200, "at most 200 characters").optional(),
  is_test: z.enum(["true", "false"], { error: "must be true or false" }).optional(),
  order: orderSchema.optional(),
  ...pagingShape,
})
export type EventListQuery = z.infer<typeof eventListQuerySchema>

/** GET /v2/transfer/transfers: the one-value parameters; the list filters are read repeated. */
export const transferListQuerySchema = z.strictObject({
  ...createdAtBounds,
  ...updatedAtBounds,
  order: orderSchema.optional(),
  order_by: z.enum(["CREATED_AT", "UPDATED_AT"], { error: "must be CREATED_AT or UPDATED_AT" }).optional(),
  limit: limitSchema(1000).optional(),
  page_cursor: pagingShape.page_cursor,
})
export type TransferListQuery = z.infer<typeof transferListQuerySchema>

/** List filters of the transfers list (`?type=A&type=B`), at most 100 values each. */
export const TRANSFER_LIST_FILTERS = [
  "profile_ids",
  "identity_ids",
  "account_ids",
  "ref_ids",
  "ids",
  "type",
  "group_ids",
  "crypto_tx_hashes",
  "statuses",
] as const
export type TransferListFilter = (typeof TRANSFER_LIST_FILTERS)[number]

const address = z.looseObject({ country: z.string({ error: "is required" }).min(1).max(35) })
const routing = z.looseObject({
  routing_number_type: z.string({ error: "is required" }),
  routing_number: z.string({ error: "is required" }).min(1),
  bank_name: z.string({ error: "is required" }).min(1),
  bank_address: address,
})

/** POST /v2/sandbox/fiat-deposits (the reference's InitiateSandboxFiatDepositRequest). */
export const sandboxFiatDepositSchema = z.strictObject({
  amount: z.string({ error: "is required" }).regex(/^[0-9]*\.?[0-9]{1,2}$/, "must be a decimal string with at most 2 decimals"),
  asset: z.literal("USD", { error: 'must be "USD" (the only asset the service supports)' }),
  memo_id: z.string({ error: "is required" }).min(1, "is required").max(100, "at most 100 characters"),
  fiat_network_instructions: z
    .strictObject({
      wire: z
        .looseObject({
          account_number: z.string({ error: "is required" }).min(1),
          fiat_account_owner_address: address,
          routing_details: routing,
          intermediary_routing_details: routing.optional(),
        })
        .optional(),
      cbit: z.looseObject({}).optional(),
      dbs_act: z.looseObject({}).optional(),
      cubix: z.looseObject({}).optional(),
      scb: z.looseObject({}).optional(),
      rtp: z.looseObject({}).optional(),
    })
    .refine((v) => Object.values(v).filter((x) => x !== undefined).length === 1, "must name exactly one network"),
  fiat_account_owner: z.looseObject({}).optional(),
})
export type SandboxFiatDeposit = z.infer<typeof sandboxFiatDepositSchema>

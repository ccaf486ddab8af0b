import { z } from "zod"
import { dateTimeSchema, idSchema, serviceRefIdSchema } from "@/lib/schemas/common"
import { TRANSFER_STATUS_VALUES, TRANSFER_TYPES } from "@/lib/schemas/transfer-constants"
import { dateTimeFilterSchema, orderSchema, pagingShape } from "@/lib/schemas/paging"
import { decimalString } from "@/lib/schemas/records"

/**
 * A transfer as the console reads it from the service's Transfers API
 * (GET /v2/transfer/transfers): every movement of a profile's funds. Client safe.
 * Amounts stay decimal strings; unknown fields are dropped on parse.
 */

export { TRANSFER_STATUS_VALUES, TRANSFER_TYPES, type TransferStatus, type TransferType } from "@/lib/schemas/transfer-constants"

/**
 * The service marks no field required; the console cannot show a transfer without an id,
 * a status, a type, an asset and an amount, so those are required here.
 */
export const transferSchema = z.object({
  id: z.string().min(1),
  customer_id: z.string().optional(),
  profile_id: z.string().optional(),
  identity_id: z.string().optional(),
  account_id: z.string().optional(),
  ref_id: z.string().optional(),
  amount: decimalString,
  fee: decimalString.optional(),
  total: decimalString.optional(),
  asset: z.string().min(1),
  balance_asset: z.string().optional(),
  direction: z.string().min(1).optional(),
  type: z.string().min(1),
  status: z.string().min(1),
  created_at: dateTimeSchema,
  updated_at: dateTimeSchema.optional(),
  crypto_network: z.string().optional(),
  crypto_tx_hash: z.string().optional(),
  crypto_tx_index: z.string().optional(),
  destination_address: z.string().optional(),
  memo: z.string().optional(),
  group_id: z.string().optional(),
  notional_value: decimalString.optional(),
  metadata: z.record(z.string(), z.string()).optional(),
})
export type Transfer = z.infer<typeof transferSchema>

export const transferPageSchema = z.object({
  items: z.array(transferSchema),
  next_page_cursor: z.string().optional(),
})
export type TransferPage = z.infer<typeof transferPageSchema>

const dateTimeFilter = dateTimeFilterSchema.optional()

/**
 * GET /api/transfers: one value per filter. `created_at.begin`/`.end` are inclusive (the
 * service's `created_at.gte`/`.lte`), as on the console's other lists.
 */
export const transferListQuerySchema = z.strictObject({
  profile_id: idSchema.optional(),
  type: z.enum(TRANSFER_TYPES, { error: `must be one of ${TRANSFER_TYPES.join(", ")}` }).optional(),
  status: z.enum(TRANSFER_STATUS_VALUES, { error: `must be one of ${TRANSFER_STATUS_VALUES.join(", ")}` }).optional(),
  ref_id: serviceRefIdSchema.optional(),
  "created_at.begin": dateTimeFilter,
  "created_at.end": dateTimeFilter,
  order: orderSchema.optional(),
  ...pagingShape,
})
export type ConsoleTransferListQuery = z.infer<typeof transferListQuerySchema>

/** What is a crypto transfer (it carries a network and an on-chain hash). */
export function isCryptoTransfer(t: Pick<Transfer, "type" | "crypto_network">): boolean {
  return t.type.startsWith("CRYPTO_") || t.crypto_network !== undefined
}

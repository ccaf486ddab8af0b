import type { Conversion } from "@/lib/schemas/records"

/** The export's columns: every field of the record, metadata as JSON. */
export const CONVERSION_CSV_COLUMNS: readonly { header: string; value: (row: Conversion) => unknown }[] = [
  { header: "id", value: (c) => c.id },
  { header: "ref_id", value: (c) => c.ref_id },
  { header: "status", value: (c) => c.status },
  { header: "profile_id", value: (c) => c.profile_id },
  { header: "source_asset", value: (c) => c.source_asset },
  { header: "target_asset", value: (c) => c.target_asset },
  { header: "amount", value: (c) => c.amount },
  { header: "created_at", value: (c) => c.created_at },
  { header: "updated_at", value: (c) => c.updated_at },
  { header: "settled_at", value: (c) => c.settled_at },
  { header: "cancelled_at", value: (c) => c.cancelled_at },
  { header: "identity_id", value: (c) => c.identity_id },
  { header: "account_id", value: (c) => c.account_id },
  { header: "recipient_profile_id", value: (c) => c.recipient_profile_id },
  { header: "metadata", value: (c) => (c.metadata ? JSON.stringify(c.metadata) : undefined) },
]

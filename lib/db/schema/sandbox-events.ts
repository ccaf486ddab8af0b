import { sql } from "drizzle-orm"
import { boolean, index, integer, jsonb, numeric, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core"

/**
 * The embedded sandbox's transfers and events (lib/sandbox/transfers.ts, events.ts): every
 * movement of a profile's funds, and what happened, as the service's Transfers and Events
 * APIs answer them. No foreign keys to profiles: a transfer outlives anything it names.
 */
const amount = (name: string) => numeric(name, { precision: 38, scale: 18 })
const at = (name: string) => timestamp(name, { withTimezone: true, precision: 6 })

export type SandboxTransferType =
  | "CRYPTO_DEPOSIT"
  | "WIRE_DEPOSIT"
  | "CBIT_DEPOSIT"
  | "CUBIX_DEPOSIT"
  | "RTP_DEPOSIT"
  | "BANK_DEPOSIT"
  | "INTERNAL_TRANSFER_DEBIT"
  | "INTERNAL_TRANSFER_CREDIT"
export type SandboxTransferStatus = "PENDING" | "COMPLETED" | "FAILED"

export const sandboxTransfers = pgTable(
  "sandbox_transfers",
  {
    id: uuid("id").primaryKey(),
    /** The OAuth client (the "customer") whose funds moved. */
    clientId: text("client_id").notNull(),
    profileId: uuid("profile_id").notNull(),
    type: text("type").$type<SandboxTransferType>().notNull(),
    direction: text("direction").$type<"CREDIT" | "DEBIT">().notNull(),
    status: text("status").$type<SandboxTransferStatus>().notNull(),
    asset: text("asset").notNull(),
    amount: amount("amount").notNull(),
    fee: amount("fee").notNull().default("0"),
    refId: text("ref_id"),
    cryptoNetwork: text("crypto_network"),
    cryptoAddress: text("crypto_address"),
    cryptoTxHash: text("crypto_tx_hash"),
    memo: text("memo"),
    /** Links the debit and credit sides of an internal transfer (an orchestration's legs). */
    groupId: uuid("group_id"),
    orchestrationId: uuid("orchestration_id"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    index("sandbox_transfers_client_created_idx").on(t.clientId, t.createdAt, t.id),
    index("sandbox_transfers_client_updated_idx").on(t.clientId, t.updatedAt, t.id),
    index("sandbox_transfers_pending_idx")
      .on(t.createdAt)
      .where(sql`${t.status} = 'PENDING'`),
  ],
)

export const sandboxEvents = pgTable(
  "sandbox_events",
  {
    id: uuid("id").primaryKey(),
    clientId: text("client_id").notNull(),
    type: text("type").notNull(),
    objectType: text("object_type").notNull(),
    object: jsonb("object").$type<Record<string, unknown>>().notNull(),
    createdAt: at("created_at").notNull(),
    /** Webhook delivery: attempts made, when the next is due, when one succeeded, or given up. */
    webhookAttempts: integer("webhook_attempts").notNull().default(0),
    webhookNextAt: at("webhook_next_at"),
    webhookDeliveredAt: at("webhook_delivered_at"),
    webhookAbandoned: boolean("webhook_abandoned").notNull().default(false),
  },
  (t) => [
    index("sandbox_events_client_created_idx").on(t.clientId, t.createdAt, t.id),
    index("sandbox_events_webhook_due_idx")
      .on(t.createdAt)
      .where(sql`${t.webhookDeliveredAt} IS NULL AND ${t.webhookAbandoned} = false`),
  ],
)

export type SandboxTransferRow = typeof sandboxTransfers.$inferSelect
export type SandboxEventRow = typeof sandboxEvents.$inferSelect

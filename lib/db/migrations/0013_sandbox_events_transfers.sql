CREATE TABLE IF NOT EXISTS "sandbox_transfers" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"profile_id" uuid NOT NULL,
	"type" text NOT NULL,
	"direction" text NOT NULL,
	"status" text NOT NULL,
	"asset" text NOT NULL,
	"amount" numeric(38, 18) NOT NULL,
	"fee" numeric(38, 18) DEFAULT '0' NOT NULL,
	"ref_id" text,
	"crypto_network" text,
	"crypto_address" text,
	"crypto_tx_hash" text,
	"memo" text,
	"group_id" uuid,
	"orchestration_id" uuid,
	"created_at" timestamp (6) with time zone NOT NULL,
	"updated_at" timestamp (6) with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sandbox_transfers_client_created_idx" ON "sandbox_transfers" USING btree ("client_id","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sandbox_transfers_client_updated_idx" ON "sandbox_transfers" USING btree ("client_id","updated_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sandbox_transfers_pending_idx" ON "sandbox_transfers" USING btree ("created_at") WHERE "sandbox_transfers"."status" = 'PENDING';--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "sandbox_events" (
	"id" uuid PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"type" text NOT NULL,
	"object_type" text NOT NULL,
	"object" jsonb NOT NULL,
	"created_at" timestamp (6) with time zone NOT NULL,
	"webhook_attempts" integer DEFAULT 0 NOT NULL,
	"webhook_next_at" timestamp (6) with time zone,
	"webhook_delivered_at" timestamp (6) with time zone,
	"webhook_abandoned" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sandbox_events_client_created_idx" ON "sandbox_events" USING btree ("client_id","created_at","id");--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "sandbox_events_webhook_due_idx" ON "sandbox_events" USING btree ("created_at") WHERE "sandbox_events"."webhook_delivered_at" IS NULL AND "sandbox_events"."webhook_abandoned" = false;--> statement-breakpoint
ALTER TABLE "sandbox_orchestrations" ADD COLUMN IF NOT EXISTS "orchestration_rule_id" text;--> statement-breakpoint
ALTER TABLE "sandbox_orchestrations" ADD COLUMN IF NOT EXISTS "processing_at" timestamp (6) with time zone;--> statement-breakpoint
UPDATE "sandbox_orchestrations" SET "processing_at" = "created_at" WHERE "processing_at" IS NULL;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "orchestration_approval" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "deposit_delay_ms" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "webhook_url" text;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "webhook_api_key_header" text;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "webhook_api_key" text;--> statement-breakpoint
ALTER TABLE "sandbox_settings" ADD COLUMN IF NOT EXISTS "webhook_since" timestamp (6) with time zone;
